#pragma once
// The uncertain measured quantities of a stated scenario and the range of each
// (docs/calibration.md, "Sensitivity ranges"): the cluster's inter- and intra-node bandwidths, the
// GPU's compute utilisation, the network latency and the transport's per-message cost. Each range
// is a factor pair on the scenario's own value, taken from the scenario's cluster, GPU, transport
// and workload, with the source it comes from:
//
//   inter-/intra-node bandwidth  the cluster's spread factors (net_models/bandwidth_spread.h)
//   compute utilisation          by how the GPU's figure was obtained: fitted on published rows
//                                (the fit's residual), one public MFU report, borrowed from
//                                another GPU, or stated in the scenario; pinned (x1) when the
//                                workload's passes are measured
//   network latency              the spread of the measured TCP one-way time over the tcp
//                                transport; an assumed factor 2 either way over every other
//   per-message cost             the run-to-run spread of the one measurement of it (tcp);
//                                pinned where the transport charges none
//
// The choices a scenario or its implementation profile states (buckets, allreduce algorithm,
// overlap, step kernel) are not here: they are what-ifs of `--sensitivity`
// (experiments/scenario/sensitivity_inputs.h), never part of the band.
//
// The band of a prediction (step_spread.h) moves each of these, one at a time, to its two
// ends and combines the deviations by root-sum-square on each side (band_of below).

#include <functional>
#include <string>
#include <vector>

#include "sim/step_simulator.h"

namespace compopt::sim {

// The two ends of a measured input, as factors on its value in the scenario (low <= 1 <= high;
// 1 and 1 when the input is pinned), and where they come from.
struct FactorRange {
  double low = 1, high = 1;
  std::string source;
  bool pinned() const { return low == 1 && high == 1; }
};

struct MeasuredInput {
  std::string name;     // e.g. "network latency"
  std::string changes;  // the field it changes
  bool network = true;  // changes the network (else the compute) of the cluster
  // Its range in `config` (resolved); throws InvalidArgument where the cluster names a transport
  // outside the registry.
  FactorRange (*range)(const StepConfig& config);
  // Multiplies the input of `config` by `factor`; returns the new value as printed (e.g. "x0.95",
  // "0.44", "25 us").
  std::string (*scale)(StepConfig& config, double factor);
};

// Every measured input, in the order tables and CSVs list them.
const std::vector<MeasuredInput>& measured_inputs();

// Utilisation ranges by how the figure was obtained (docs/calibration.md, "Sensitivity
// ranges"): +- this fraction of the figure.
inline constexpr double kFittedRange = 0.198;       // the V100 fit's 80th-percentile |residual|
inline constexpr double kPublicReportRange = 0.20;  // one public MFU report (assumption)
inline constexpr double kBorrowedRange = 0.30;      // borrowed from another GPU (assumption)

// A figure and its deviations: the band's rule. `ends` holds, for each input, the figure at
// its low and at its high end (either order). low = expected - sqrt(sum of squared shortfalls
// below expected), high = expected + sqrt(sum of squared excesses above it), so
// low <= expected <= high, and a pinned input (both ends at expected) adds nothing.
struct Band {
  double low = 0, high = 0;
};
Band band_of(double expected, const std::vector<std::pair<double, double>>& ends);

}  // namespace compopt::sim

namespace compopt::sim {

// The band of a prediction of the network alone (an allreduce time), `expected` being
// predict(cluster): predict at both ends of each network input of `cluster` that is not pinned,
// combined as band_of does.
Band network_band(const net::ClusterSpec& cluster, double expected,
                  const std::function<double(const net::ClusterSpec&)>& predict);

}  // namespace compopt::sim
