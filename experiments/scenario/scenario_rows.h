#pragma once
// The rows of profile.csv and sweep.csv, computed by one code path for `compopt profile`,
// `compopt sweep` and the Python package's compopt.simulate / compopt.sweep
// (python/src/bind_simulator.cc), so all four write the same rows for the same inputs. The
// simulations themselves run elsewhere (forked_simulation.h, or in this process for `compopt
// profile`); these functions only compute from their timings.

#include <string>
#include <vector>

#include "experiments/scenario/forked_simulation.h"
#include "experiments/scenario/sweep_summary.h"
#include "sim/scenario.h"

namespace compopt::cli {

// profile.csv's text: the header and one row per stage of `timings`.
std::string profile_csv(const sim::StepConfig& config, const std::vector<sim::StageTiming>& timings,
                        const sim::ScenarioTotals& totals);

// profile.csv of `scenario` from its simulated step (with its spread).
std::string profile_csv(const sim::Scenario& scenario, const SimulatedStep& step);

// sweep.csv (before finish_sweep_csv, sweep_totals.h) of the scenarios from their simulated
// steps (steps[i] of scenarios[i], each with its spread); appends their SweepRow values to
// `rows`.
std::string sweep_csv(const std::vector<sim::Scenario>& scenarios,
                      const std::vector<SimulatedStep>& steps, std::vector<SweepRow>& rows);

}  // namespace compopt::cli
