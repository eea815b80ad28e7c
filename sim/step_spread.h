#pragma once
// Low / expected / high predictions of one step (docs/simulator.md, "Uncertainty"): the
// expected step runs at the cluster's effective bandwidths; two more simulations run every
// link of each class at its low and at its high factor (net_models/bandwidth_spread.h).
// Less bandwidth gives the high step time and the low throughput. Bounds are taken over all
// three runs, so low <= expected <= high holds even where a schedule is not monotonic in
// bandwidth.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "sim/step_simulator.h"

namespace compopt::sim {

struct StepSpread {
  // simulate_step's rows at the high and at the low bandwidths, stage for stage as `expected`.
  std::vector<StageTiming> fast, slow;
  std::string source;  // net::LinkSpreads::source of the cluster
};

// `expected` is simulate_step(config). A cluster without a spread (factors 1: a platform file)
// is not simulated again: fast and slow are copies of `expected`.
StepSpread simulate_step_spread(const StepConfig& config, const std::vector<StageTiming>& expected);

// The JSON form of a spread, lossless like StageTiming's (stage_timing.h); reading one without
// a field throws.
void to_json(nlohmann::json& j, const StepSpread& spread);
void from_json(const nlohmann::json& j, StepSpread& spread);

struct StageBounds {
  double step_time_low_s = 0, step_time_high_s = 0;
  double throughput_low_samples_s = 0, throughput_high_samples_s = 0;
};

// The bounds of stage `index` (of simulate_step's rows) over the three runs.
StageBounds stage_bounds(const std::vector<StageTiming>& expected, const StepSpread& spread,
                         size_t index);

}  // namespace compopt::sim
