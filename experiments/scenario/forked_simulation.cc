#include "experiments/scenario/forked_simulation.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

#include "experiments/scenario/forked_jobs.h"

namespace compopt::cli {

namespace {

nlohmann::json step_json(const SimulatedStep& step) {
  nlohmann::json j{
      {"timings", step.timings}, {"spread", nullptr}, {"phases", nlohmann::json::array()}};
  if (step.spread) j["spread"] = *step.spread;
  for (const SimulatedStep& phase : step.phases) j["phases"].push_back(step_json(phase));
  return j;
}

SimulatedStep step_of(const nlohmann::json& j) {
  SimulatedStep step{j.at("timings").get<std::vector<sim::StageTiming>>(), std::nullopt};
  if (!j.at("spread").is_null()) step.spread = j.at("spread").get<sim::StepSpread>();
  for (const nlohmann::json& phase : j.at("phases")) step.phases.push_back(step_of(phase));
  return step;
}

// The step of `config` (a resolved `scenario`), with `spread` its spread and its phases'.
SimulatedStep simulate_scenario(const sim::Scenario& scenario, const sim::StepConfig& config,
                                bool spread) {
  SimulatedStep step{sim::simulate_step(config), std::nullopt};
  if (!spread) return step;
  step.spread = sim::simulate_step_spread(config);
  for (const sim::Scenario& phase : sim::phase_scenarios(scenario))
    step.phases.push_back(simulate_scenario(phase, sim::resolve_scenario(phase), true));
  return step;
}

}  // namespace

std::string encode_simulated_step(const SimulatedStep& step) { return step_json(step).dump(); }

SimulatedStep decode_simulated_step(std::string_view text) {
  return step_of(nlohmann::json::parse(text));
}

std::vector<SimulatedStep> simulate_forked(const std::vector<sim::Scenario>& scenarios,
                                           const std::vector<size_t>& indexes,
                                           const ForkedSimulation& how) {
  std::vector<sim::StepConfig> configs;  // resolved here: bad input throws before any fork
  configs.reserve(indexes.size());
  for (size_t i : indexes) configs.push_back(sim::resolve_scenario(scenarios.at(i)));
  const auto work = [&](size_t k) {
    return encode_simulated_step(simulate_scenario(scenarios[indexes[k]], configs[k], how.spread));
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

std::vector<sim::SimulatedPhase> simulated_phases(const sim::Scenario& scenario,
                                                  const std::vector<SimulatedStep>& steps) {
  const std::vector<sim::Scenario> phases = sim::phase_scenarios(scenario);
  if (steps.size() != phases.size()) {
    throw std::logic_error(fmt::format("{} simulated phases for the {} phases of the run",
                                       steps.size(), phases.size()));
  }
  std::vector<sim::SimulatedPhase> out;
  out.reserve(phases.size());
  for (size_t i = 0; i < phases.size(); ++i) {
    if (!steps[i].spread) throw std::logic_error("a phase simulated without its spread");
    out.push_back({sim::resolve_scenario(phases[i]), steps[i].timings, *steps[i].spread});
  }
  return out;
}

std::vector<sim::SimulatedPhase> simulate_phases_forked(const sim::Scenario& scenario,
                                                        int parallel) {
  const std::vector<sim::Scenario> phases = sim::phase_scenarios(scenario);
  if (phases.empty()) return {};
  const auto describe = [&](size_t i) {
    return fmt::format("training.phases[{}] ({})", i + 1, phases[i].workload);
  };
  return simulated_phases(
      scenario,
      simulate_forked(phases, {.parallel = parallel, .spread = true, .describe = describe}));
}

std::vector<SimulatedStep> simulate_forked(const std::vector<sim::Scenario>& scenarios,
                                           const ForkedSimulation& how) {
  std::vector<size_t> all(scenarios.size());
  std::iota(all.begin(), all.end(), size_t{0});
  return simulate_forked(scenarios, all, how);
}

}  // namespace compopt::cli
