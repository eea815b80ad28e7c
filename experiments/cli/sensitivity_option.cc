#include "experiments/cli/sensitivity_option.h"

#include <fmt/format.h>

#include "experiments/scenario/forked_jobs.h"
#include "experiments/scenario/sensitivity_report.h"

namespace compopt::cli {

void add_sensitivity_flag(CLI::App& cmd, bool& sensitivity) {
  cmd.add_flag("--sensitivity", sensitivity,
               "also move each uncertain input (bandwidth, utilisation, latency, buckets, "
               "allreduce algorithm, overlap, step kernel, ...) over its documented range, one "
               "at a time, and print the speedup over the baseline at each end and whether "
               "the verdict flips; writes sensitivity.csv (docs/whatif.md)");
}

nlohmann::json write_sensitivity(const std::vector<SensitivityPlan>& plans, int jobs,
                                 const RunDirectory& dir) {
  const std::vector<Sensitivity> analyses = simulate_sensitivity(plans, parallel_jobs(jobs));
  for (const Sensitivity& s : analyses) fmt::print("\n{}", sensitivity_table(s));
  dir.write_file("sensitivity.csv", sensitivity_csv(analyses));
  return sensitivity_json(analyses);
}

}  // namespace compopt::cli
