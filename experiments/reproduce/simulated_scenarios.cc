#include "experiments/reproduce/simulated_scenarios.h"

#include <fmt/format.h>

#include "core/optim/optimizer_registry.h"
#include "experiments/scenario/forked_simulation.h"

namespace compopt::cli::reproduce {
bool same_step_optimizer(std::string_view a, std::string_view b) {
  return optimizer_registry().canonical(a) == optimizer_registry().canonical(b);
}

std::vector<StageTimings> simulate_scenarios(const std::vector<sim::Scenario>& scenarios,
                                             int jobs) {
  const auto describe = [&](size_t i) {
    return fmt::format("simulation of {} / {} on {} GPUs at {} Gbit/s", scenarios[i].workload,
                       scenarios[i].optimizer, scenarios[i].gpus, scenarios[i].inter_node_gbps);
  };
  std::vector<StageTimings> out;
  out.reserve(scenarios.size());
  for (SimulatedStep& step : simulate_forked(scenarios, {.parallel = jobs, .describe = describe}))
    out.push_back(std::move(step.timings));
  return out;
}

const sim::StageTiming& steady_stage(const StageTimings& stages) {
  for (const sim::StageTiming& t : stages)
    if (t.stage == stage_name(Stage::kCompression)) return t;
  return stages.front();
}

}  // namespace compopt::cli::reproduce
