#include "experiments/reproduce/simulated_scenarios.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/optim/optimizer_registry.h"
#include "experiments/scenario/forked_simulation.h"

namespace compopt::cli::reproduce {
bool same_step_optimizer(std::string_view a, std::string_view b) {
  return optimizer_registry().canonical(a) == optimizer_registry().canonical(b);
}

namespace {

std::vector<SimulatedStep> simulate(const std::vector<sim::Scenario>& scenarios, int jobs,
                                    bool spread) {
  const auto describe = [&](size_t i) {
    return fmt::format("simulation of {} / {} on {} GPUs at {} Gbit/s", scenarios[i].workload,
                       scenarios[i].optimizer, scenarios[i].gpus, scenarios[i].inter_node_gbps);
  };
  return simulate_forked(scenarios, {.parallel = jobs, .spread = spread, .describe = describe});
}

}  // namespace

std::vector<StageTimings> simulate_scenarios(const std::vector<sim::Scenario>& scenarios,
                                             int jobs) {
  std::vector<StageTimings> out;
  out.reserve(scenarios.size());
  for (SimulatedStep& step : simulate(scenarios, jobs, false))
    out.push_back(std::move(step.timings));
  return out;
}

std::vector<SpreadTimings> simulate_scenarios_with_spread(
    const std::vector<sim::Scenario>& scenarios, int jobs) {
  std::vector<SpreadTimings> out;
  out.reserve(scenarios.size());
  for (SimulatedStep& step : simulate(scenarios, jobs, true))
    out.push_back(
        {std::move(step.timings), std::move(step.spread->fast), std::move(step.spread->slow)});
  return out;
}

FigureBand band_of(const std::array<double, 3>& per_run) {
  const auto [low, high] = std::minmax_element(per_run.begin(), per_run.end());
  return {per_run[0], *low, *high};
}

const sim::StageTiming& steady_stage(const StageTimings& stages) {
  for (const sim::StageTiming& t : stages)
    if (t.stage == stage_name(Stage::kCompression)) return t;
  return stages.front();
}

}  // namespace compopt::cli::reproduce
