#include "experiments/scenario/scenario_origin.h"

#include <fmt/format.h>

#include <algorithm>

#include "experiments/scenario/cluster_table.h"
#include "net_models/compute_model.h"

namespace compopt::cli {

std::vector<std::string> scenario_origin_lines(const std::vector<sim::Scenario>& scenarios,
                                               size_t limit) {
  std::vector<std::string> lines;
  for (const sim::Scenario& s : scenarios) {
    const sim::StepConfig config = sim::resolve_scenario(s);
    for (std::string line : {cluster_origin(config.cluster, s.cluster_spec.has_value()),
                             net::compute_summary(config.workload, config.cluster.gpu,
                                                  config.batch_per_gpu, config.grad_accum)}) {
      if (std::find(lines.begin(), lines.end(), line) == lines.end())
        lines.push_back(std::move(line));
    }
  }
  if (lines.size() > limit) {
    const size_t left_out = lines.size() - limit;
    lines.resize(limit);
    lines.push_back(
        fmt::format("... and {} more (sweep.csv: compute_utilization per row)", left_out));
  }
  return lines;
}

}  // namespace compopt::cli
