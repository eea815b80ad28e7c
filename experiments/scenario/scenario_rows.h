#pragma once
// The rows of profile.csv and sweep.csv, computed by one code path for `compopt profile`,
// `compopt sweep` and the Python package's compopt.simulate / compopt.sweep
// (python/src/bind_simulator.cc), so all four write the same rows for the same inputs.
//
// Each simulate_* function runs SimGrid, which allows one engine per process: a caller that
// simulates more than once (a sweep, a Python session) runs them in forked processes
// (simulate_scenarios, forked_jobs.h).

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "experiments/scenario/sweep_summary.h"
#include "sim/scenario.h"

namespace compopt::cli {

// profile.csv's text: the header and one row per stage of `timings`.
std::string profile_csv(const sim::StepConfig& config, const std::vector<sim::StageTiming>& timings,
                        const sim::ScenarioTotals& totals);

// profile.csv of `scenario`: resolved, simulated, its totals and bounds (in this process).
std::string simulate_profile_csv(const sim::Scenario& scenario);

// One sweep scenario simulated (in this process): JSON {"csv": its sweep.csv rows, "rows": its
// SweepRow values for the summary table}.
std::string simulate_sweep_scenario(const sim::Scenario& scenario);

// simulate_sweep_scenario of scenarios[indexes[k]] for every k, each in its own forked process,
// `jobs` at a time; the results in the order of `indexes`. on_done(k) runs as job k finishes.
std::vector<std::string> simulate_scenarios(const std::vector<sim::Scenario>& scenarios,
                                            const std::vector<size_t>& indexes, int jobs,
                                            const std::function<void(size_t)>& on_done = {});

// sweep.csv (before finish_sweep_csv) from simulate_sweep_scenario's results in order; appends
// their SweepRow values to `rows`.
std::string sweep_csv(const std::vector<std::string>& results, std::vector<SweepRow>& rows);

// The largest GPU count of `scenarios` (each resolves).
int largest_gpus(const std::vector<sim::Scenario>& scenarios);

}  // namespace compopt::cli
