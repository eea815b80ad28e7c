#include "core/train/step_record.h"

#include <fmt/format.h>

namespace compopt {
namespace {

std::string cell(const std::optional<double>& v) { return v ? fmt::format("{:.8g}", *v) : ""; }

}  // namespace

std::string metrics_csv_header() {
  return "step,samples,epoch,stage,lr,train_loss,test_loss,test_accuracy,var_norm_l2,var_ratio_l1,"
         "bytes_sent,bytes_sent_inter_node,time_s";
}

std::string metrics_csv_row(const StepRecord& r) {
  return fmt::format("{},{},{:.6f},{},{:.8g},{:.8g},{},{},{},{},{:.1f},{:.1f},{:.6f}", r.step,
                     r.samples, r.epoch, r.stage, r.lr, r.train_loss, cell(r.test_loss),
                     cell(r.test_accuracy), cell(r.var_norm_l2), cell(r.var_ratio_l1), r.bytes_sent,
                     r.bytes_sent_inter_node, r.time_s);
}

}  // namespace compopt
