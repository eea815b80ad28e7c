#pragma once
// Step simulations for the simulator studies: every scenario is simulated in its own forked
// process (experiments/scenario/forked_simulation.h), `jobs` at a time, and its stage timings
// come back in scenario order. The *_with_spread form also simulates each scenario at the two
// ends of its cluster's bandwidth spread (sim/step_spread.h), the low..high band a study's
// figure draws around each point.

#include <array>
#include <string_view>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli::reproduce {

using StageTimings = std::vector<sim::StageTiming>;

// Throws InvalidArgument (bad scenario, before any work) or std::runtime_error.
std::vector<StageTimings> simulate_scenarios(const std::vector<sim::Scenario>& scenarios, int jobs);

// One scenario's stage timings at the expected bandwidths, at the high end of the cluster's
// spread (`fast`) and at its low end (`slow`), stage for stage alike.
struct SpreadTimings {
  StageTimings expected, fast, slow;
};
std::vector<SpreadTimings> simulate_scenarios_with_spread(
    const std::vector<sim::Scenario>& scenarios, int jobs);

// A figure of the three runs (expected, fast, slow) and its low..high over them; taken over all
// three, so low <= expected <= high even where a figure is not monotonic in bandwidth.
struct FigureBand {
  double expected = 0, low = 0, high = 0;
};
FigureBand band_of(const std::array<double, 3>& per_run);
// `figure` of each run of `s`, in the order expected, fast, slow.
template <class Figure>
std::array<double, 3> per_run(const SpreadTimings& s, Figure figure) {
  return {figure(s.expected), figure(s.fast), figure(s.slow)};
}

// The stage a comparison uses: "compression" when the optimizer has one, else
// its only stage ("full_precision").
const sim::StageTiming& steady_stage(const StageTimings& stages);

// Whether two optimizer names (or aliases) name the same registered optimizer: the papers'
// tables and the published rows call momentum SGD `sgdm`, an alias of `momentum-sgd`.
bool same_step_optimizer(std::string_view a, std::string_view b);

}  // namespace compopt::cli::reproduce
