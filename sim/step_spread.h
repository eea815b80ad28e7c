#pragma once
// Low / expected / high predictions of one step (docs/simulator.md, "Uncertainty"): the
// expected step runs at the scenario's own inputs; for each uncertain measured input of the
// scenario (input_ranges.h) that is not pinned, two more simulations run it at the low and at
// the high end of its range, everything else at the scenario's value. A figure's band is
// the root-sum-square of those one-at-a-time deviations on each side (band_of,
// input_ranges.h), with the model's own error as one more term (model_error.h), so
// low <= expected <= high holds even where a schedule is not monotonic in an input.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "sim/input_ranges.h"
#include "sim/model_error.h"
#include "sim/step_simulator.h"

namespace compopt::sim {

// simulate_step's rows with one input at each end of its range, stage for stage as expected.
struct InputRuns {
  std::string input;  // MeasuredInput::name
  std::vector<StageTiming> low, high;
};

struct StepSpread {
  std::vector<InputRuns> inputs;  // the inputs not pinned, in measured_inputs() order
  std::string source;  // every input's range and where it comes from, and the model-error term
};

// The runs of `config`'s inputs (the expected run, simulate_step(config), is the caller's). With
// every input pinned nothing is simulated and every band is the model-error term alone.
StepSpread simulate_step_spread(const StepConfig& config);

// The scenarios a spread simulates: each input not pinned at its low and at its high end, in
// measured_inputs() order (what simulate_step_spread runs, for callers that run them elsewhere).
struct InputEnds {
  std::string input;
  StepConfig low, high;
};
std::vector<InputEnds> spread_scenarios(const StepConfig& config);
// The spread of `config` from the runs of spread_scenarios(config): `runs` holds simulate_step's
// rows of each one's low then high end, in order. Throws std::invalid_argument when the count
// differs.
StepSpread spread_of(const StepConfig& config, std::vector<std::vector<StageTiming>> runs);

// Each input's range in `config` and where it comes from, one line per input (joined by "; ",
// StepSpread::source).
std::vector<std::string> input_range_lines(const StepConfig& config);

// The JSON form of a spread, lossless like StageTiming's (stage_timing.h); reading one without
// a field throws.
void to_json(nlohmann::json& j, const InputRuns& runs);
void from_json(const nlohmann::json& j, InputRuns& runs);
void to_json(nlohmann::json& j, const StepSpread& spread);
void from_json(const nlohmann::json& j, StepSpread& spread);

// The band of `figure` (a predicted time of one run's rows, or its inverse) over the spread's
// runs, widened by the model-error term (model_error.h).
template <class Figure>
Band figure_band(const std::vector<StageTiming>& expected, const StepSpread& spread,
                 Figure figure) {
  std::vector<std::pair<double, double>> ends;
  ends.reserve(spread.inputs.size());
  for (const InputRuns& r : spread.inputs) ends.emplace_back(figure(r.low), figure(r.high));
  return predicted_time_band(figure(expected), ends);
}

struct StageBounds {
  double step_time_low_s = 0, step_time_high_s = 0;
  double throughput_low_samples_s = 0, throughput_high_samples_s = 0;
};

// The bands of stage `index` (of simulate_step's rows).
StageBounds stage_bounds(const std::vector<StageTiming>& expected, const StepSpread& spread,
                         size_t index);

}  // namespace compopt::sim
