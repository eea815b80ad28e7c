#pragma once
// Step simulations for the simulator studies: every scenario is simulated in its own forked
// process (experiments/scenario/forked_simulation.h), `jobs` at a time, and its stage timings
// come back in scenario order. The *_with_spread form also simulates each scenario at the two
// ends of each uncertain input's range (sim/step_spread.h), from which the low..high band a
// study's figure draws around each point comes.

#include <string_view>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli::reproduce {

using StageTimings = std::vector<sim::StageTiming>;

// Throws InvalidArgument (bad scenario, before any work) or std::runtime_error.
std::vector<StageTimings> simulate_scenarios(const std::vector<sim::Scenario>& scenarios, int jobs);

// One scenario's stage timings at its own inputs and the runs of its uncertain inputs, each at
// the two ends of its range (sim/step_spread.h).
struct SpreadTimings {
  StageTimings expected;
  sim::StepSpread spread;
};
std::vector<SpreadTimings> simulate_scenarios_with_spread(
    const std::vector<sim::Scenario>& scenarios, int jobs);

// A figure and its low..high band: the root-sum-square of its one-at-a-time deviations
// (sim::band_of), so low <= expected <= high.
struct FigureBand {
  double expected = 0, low = 0, high = 0;
};
// `figure` (of one run's StageTimings) over the runs of `s`.
template <class Figure>
FigureBand figure_band(const SpreadTimings& s, Figure figure) {
  const sim::Band band = sim::figure_band(s.expected, s.spread, figure);
  return {figure(s.expected), band.low, band.high};
}
// Throws std::logic_error when `a` and `b` ran different inputs (paired_band).
void check_same_inputs(const SpreadTimings& a, const SpreadTimings& b);
// `figure` (of a run of `a` and the run of `b` at the same input end, e.g. a speedup) over the
// runs of two scenarios of the same cluster and inputs; throws std::logic_error when their
// inputs differ.
template <class Figure>
FigureBand paired_band(const SpreadTimings& a, const SpreadTimings& b, Figure figure) {
  check_same_inputs(a, b);
  std::vector<std::pair<double, double>> ends;
  for (size_t k = 0; k < a.spread.inputs.size(); ++k) {
    const sim::InputRuns &x = a.spread.inputs[k], &y = b.spread.inputs[k];
    ends.emplace_back(figure(x.low, y.low), figure(x.high, y.high));
  }
  const double expected = figure(a.expected, b.expected);
  const sim::Band band = sim::band_of(expected, ends);
  return {expected, band.low, band.high};
}
// The stage a comparison uses: "compression" when the optimizer has one, else
// its only stage ("full_precision").
const sim::StageTiming& steady_stage(const StageTimings& stages);

// Whether two optimizer names (or aliases) name the same registered optimizer: the papers'
// tables and the published rows call momentum SGD `sgdm`, an alias of `momentum-sgd`.
bool same_step_optimizer(std::string_view a, std::string_view b);

}  // namespace compopt::cli::reproduce
