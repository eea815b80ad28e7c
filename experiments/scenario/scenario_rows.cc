#include "experiments/scenario/scenario_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "experiments/scenario/forked_jobs.h"

namespace compopt::cli {

std::string profile_csv(const sim::StepConfig& config, const std::vector<sim::StageTiming>& timings,
                        const sim::ScenarioTotals& totals) {
  std::string csv = sim::scenario_csv_header();
  for (const sim::StageTiming& t : timings) csv += sim::scenario_csv_row(config, t, totals);
  return csv;
}

std::string simulate_profile_csv(const sim::Scenario& scenario) {
  const sim::StepConfig config = sim::resolve_scenario(scenario);
  const std::vector<sim::StageTiming> timings = sim::simulate_step(config);
  return profile_csv(config, timings, sim::scenario_totals(config, scenario.training, timings));
}

std::string simulate_sweep_scenario(const sim::Scenario& scenario) {
  const sim::StepConfig config = sim::resolve_scenario(scenario);
  const std::vector<sim::StageTiming> timings = sim::simulate_step(config);
  const sim::ScenarioTotals totals = sim::scenario_totals(config, scenario.training, timings);
  std::vector<SweepRow> rows;
  std::string csv;
  for (const auto& t : timings) {
    rows.push_back(sweep_row(config, t, totals.bounds.at(t.stage)));
    csv += sim::scenario_csv_row(config, t, totals);
  }
  return nlohmann::json{{"csv", csv}, {"rows", rows}}.dump();
}

std::vector<std::string> simulate_scenarios(const std::vector<sim::Scenario>& scenarios,
                                            const std::vector<size_t>& indexes, int jobs,
                                            const std::function<void(size_t)>& on_done) {
  const auto scenario = [&](size_t k) -> const sim::Scenario& { return scenarios[indexes[k]]; };
  return run_forked({.count = indexes.size(),
                     .parallel = jobs,
                     .work = [&](size_t k) { return simulate_sweep_scenario(scenario(k)); },
                     .describe =
                         [&](size_t k) {
                           return fmt::format("scenario {} ({} on {} GPUs)", indexes[k] + 1,
                                              scenario(k).optimizer, scenario(k).gpus);
                         },
                     .on_done = on_done});
}

std::string sweep_csv(const std::vector<std::string>& results, std::vector<SweepRow>& rows) {
  std::string csv = sim::scenario_csv_header();
  for (const std::string& text : results) {
    const nlohmann::json result = nlohmann::json::parse(text);
    csv += result.at("csv").get<std::string>();
    for (const SweepRow& row : result.at("rows").get<std::vector<SweepRow>>()) rows.push_back(row);
  }
  return csv;
}

int largest_gpus(const std::vector<sim::Scenario>& scenarios) {
  int gpus = 0;
  for (const sim::Scenario& s : scenarios)
    gpus = std::max(gpus, sim::resolve_scenario(s).cluster.gpus());
  return gpus;
}

}  // namespace compopt::cli
