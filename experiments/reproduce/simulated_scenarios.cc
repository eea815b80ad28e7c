#include "experiments/reproduce/simulated_scenarios.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

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
    out.push_back({std::move(step.timings), std::move(*step.spread)});
  return out;
}

void check_same_inputs(const SpreadTimings& a, const SpreadTimings& b) {
  const auto names = [](const SpreadTimings& s) {
    std::vector<std::string> out;
    for (const sim::InputRuns& r : s.spread.inputs) out.push_back(r.input);
    return out;
  };
  if (names(a) != names(b)) {
    throw std::logic_error(fmt::format("paired band over different inputs: {} against {}",
                                       fmt::join(names(a), ", "), fmt::join(names(b), ", ")));
  }
}

const sim::StageTiming& steady_stage(const StageTimings& stages) {
  for (const sim::StageTiming& t : stages)
    if (t.stage == stage_name(Stage::kCompression)) return t;
  return stages.front();
}

}  // namespace compopt::cli::reproduce
