#include "experiments/scenario/scenario_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace compopt::cli {
namespace {

// The totals of a simulated step; the step must carry its spread and its phases' steps.
sim::ScenarioTotals totals_of(const sim::StepConfig& config, const sim::Scenario& scenario,
                              const SimulatedStep& step) {
  if (!step.spread) {
    throw std::logic_error(fmt::format(
        "{} on {} GPUs: simulated without its measured inputs' runs, which the rows need",
        config.optimizer, config.cluster.gpus()));
  }
  return sim::scenario_totals(config, scenario.training, step.timings, *step.spread,
                              simulated_phases(scenario, step.phases));
}

}  // namespace

std::string profile_csv(const sim::StepConfig& config, const std::vector<sim::StageTiming>& timings,
                        const sim::ScenarioTotals& totals) {
  std::string csv = sim::scenario_csv_header();
  for (const sim::StageTiming& t : timings) csv += sim::scenario_csv_row(config, t, totals);
  return csv;
}

std::string profile_csv(const sim::Scenario& scenario, const SimulatedStep& step) {
  const sim::StepConfig config = sim::resolve_scenario(scenario);
  return profile_csv(config, step.timings, totals_of(config, scenario, step));
}

std::string sweep_csv(const std::vector<sim::Scenario>& scenarios,
                      const std::vector<SimulatedStep>& steps, std::vector<SweepRow>& rows) {
  if (steps.size() != scenarios.size()) {
    throw std::logic_error(fmt::format("sweep_csv: {} simulated steps for {} scenarios",
                                       steps.size(), scenarios.size()));
  }
  std::string csv = sim::scenario_csv_header();
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const sim::StepConfig config = sim::resolve_scenario(scenarios[i]);
    const sim::ScenarioTotals totals = totals_of(config, scenarios[i], steps[i]);
    for (const sim::StageTiming& t : steps[i].timings) {
      rows.push_back(sweep_row(config, t, totals.bounds.at(t.stage)));
      csv += sim::scenario_csv_row(config, t, totals);
    }
  }
  return csv;
}

}  // namespace compopt::cli
