#include "core/train/step_record.h"

namespace compopt {

namespace {

const CsvSchema& metrics_csv_schema() {
  static const CsvSchema schema("metrics.csv", {{"step"},
                                                {"samples"},
                                                {"epoch", "{:.6f}"},
                                                {"stage"},
                                                {"lr", "{:.8g}"},
                                                {"train_loss", "{:.8g}"},
                                                {"test_loss", "{:.8g}"},
                                                {"test_accuracy", "{:.8g}"},
                                                {"var_norm_l2", "{:.8g}"},
                                                {"var_ratio_l1", "{:.8g}"},
                                                {"bytes_sent", "{:.1f}"},
                                                {"bytes_sent_inter_node", "{:.1f}"},
                                                {"time_s", "{:.6f}"},
                                                {"step_wall_s", "{:.6f}"},
                                                {"compute_s", "{:.6f}"},
                                                {"comm_s", "{:.6f}"},
                                                {"compression_s", "{:.6f}"}});
  return schema;
}

}  // namespace

std::string metrics_csv(const std::vector<StepRecord>& records) {
  CsvWriter csv(metrics_csv_schema());
  for (const StepRecord& r : records) {
    csv.add({r.step, r.samples, r.epoch, r.stage, r.lr, r.train_loss, r.test_loss, r.test_accuracy,
             r.var_norm_l2, r.var_ratio_l1, r.bytes_sent, r.bytes_sent_inter_node, r.time_s,
             r.step_wall_s, r.compute_s, r.comm_s, r.compression_s});
  }
  return csv.text();
}

}  // namespace compopt
