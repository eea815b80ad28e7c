#include "experiments/scenario/forked_simulation.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <numeric>

#include "experiments/scenario/forked_jobs.h"

namespace compopt::cli {

std::string encode_simulated_step(const SimulatedStep& step) {
  nlohmann::json j{{"timings", step.timings}, {"spread", nullptr}};
  if (step.spread) j["spread"] = *step.spread;
  return j.dump();
}

SimulatedStep decode_simulated_step(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  SimulatedStep step{j.at("timings").get<std::vector<sim::StageTiming>>(), std::nullopt};
  if (!j.at("spread").is_null()) step.spread = j.at("spread").get<sim::StepSpread>();
  return step;
}

std::vector<SimulatedStep> simulate_forked(const std::vector<sim::Scenario>& scenarios,
                                           const std::vector<size_t>& indexes,
                                           const ForkedSimulation& how) {
  std::vector<sim::StepConfig> configs;  // resolved here: bad input throws before any fork
  configs.reserve(indexes.size());
  for (size_t i : indexes) configs.push_back(sim::resolve_scenario(scenarios.at(i)));
  const auto work = [&](size_t k) {
    SimulatedStep step{sim::simulate_step(configs[k]), std::nullopt};
    if (how.spread) step.spread = sim::simulate_step_spread(configs[k]);
    return encode_simulated_step(step);
  };
  const auto describe = [&](size_t k) {
    if (how.describe) return how.describe(indexes[k]);
    return fmt::format("scenario {} ({} on {} GPUs)", indexes[k] + 1, configs[k].optimizer,
                       configs[k].cluster.gpus());
  };
  const std::vector<std::string> texts = run_forked({.count = indexes.size(),
                                                     .parallel = how.parallel,
                                                     .work = work,
                                                     .describe = describe,
                                                     .on_done = how.on_done});
  std::vector<SimulatedStep> steps;
  steps.reserve(texts.size());
  for (const std::string& text : texts) steps.push_back(decode_simulated_step(text));
  return steps;
}

sim::StepSpread simulate_spread_forked(const sim::StepConfig& config, int parallel) {
  const std::vector<sim::InputEnds> ends = sim::spread_scenarios(config);
  const auto end_of = [&](size_t k) -> const sim::StepConfig& {
    return k % 2 ? ends[k / 2].high : ends[k / 2].low;
  };
  const auto work = [&](size_t k) { return nlohmann::json(sim::simulate_step(end_of(k))).dump(); };
  const auto describe = [&](size_t k) {
    return fmt::format("{} at its {} end", ends[k / 2].input, k % 2 ? "high" : "low");
  };
  const std::vector<std::string> texts = run_forked(
      {.count = 2 * ends.size(), .parallel = parallel, .work = work, .describe = describe});
  std::vector<std::vector<sim::StageTiming>> runs;
  runs.reserve(texts.size());
  for (const std::string& text : texts)
    runs.push_back(nlohmann::json::parse(text).get<std::vector<sim::StageTiming>>());
  return sim::spread_of(config, std::move(runs));
}

std::vector<SimulatedStep> simulate_forked(const std::vector<sim::Scenario>& scenarios,
                                           const ForkedSimulation& how) {
  std::vector<size_t> all(scenarios.size());
  std::iota(all.begin(), all.end(), size_t{0});
  return simulate_forked(scenarios, all, how);
}

}  // namespace compopt::cli
