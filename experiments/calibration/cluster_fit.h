#pragma once
// The fit of a cluster's named link parameters to its measurements (docs/calibrate.md,
// "What the fit does"), with the step simulator in the loop: each measurement is predicted
// on the base cluster shaped as it ran (measurement.h), and each parameter is fitted only on
// the rows it governs:
//
//   intra_node_efficiency   1-node rows in the bandwidth regime
//   intra_node_latency_s    1-node rows in the latency regime
//   inter_node_efficiency   multi-node rows in the bandwidth regime
//   inter_node_latency_s    multi-node rows in the latency regime
//
// A row is in the latency regime when its measured time is at most 2 x the latency of its
// log, in the bandwidth regime when it is at least 4 x that latency; rows between inform
// neither and only show their residuals. Of each log, a rate takes its 4 largest bandwidth
// rows and a latency its 4 smallest latency rows (more rows of one log cost time, not
// information). A log's latency is the time of its smallest size when
// that is <= 64 KiB, else the alpha of its latency-bandwidth fit (alpha_beta.h), else the
// simulator's 8-byte allreduce on the base cluster. Efficiencies are fitted as the calibration
// of the presets is (sim/network_fit.h): multiplied by the geometric mean of predicted /
// measured until it is 1 (bounded to (0, 1]); latencies (0.1 us .. 10 ms) by the squared log
// error, on a grid and then by golden-section search. The parameters are fitted in the order
// above, two passes. One without rows keeps the base cluster's value and says why. NCCL_ALGO
// and the NCCL version are taken from the logs when they show them. The per-message cost
// (not separable from latency by one collective's rows) and the per-flow cap (shown only by
// runs that vary the streams per peer) keep their values and a note says so.

#include <string>
#include <vector>

#include "experiments/calibration/measurement.h"
#include "net_models/cluster_spec.h"

namespace compopt::calibration {

struct FittedValue {
  std::string name;  // the [cluster] key
  double value = 0, base = 0;
  int rows = 0;                 // rows it was fitted on
  double median_error_pct = 0;  // median |predicted - measured| / measured over those rows
  std::string status;           // "fitted", "fitted, at its bound ...", or why it was kept
};

struct Residual {
  const Measurement* row = nullptr;
  std::string regime;  // "latency" | "bandwidth" | "between" | "not timed" (not allreduce)
  double uncalibrated_s = 0, calibrated_s = 0;
  double uncalibrated_error_pct = 0, calibrated_error_pct = 0;
};

struct ClusterFit {
  net::ClusterSpec cluster;  // the base with the fitted values
  std::vector<FittedValue> values;
  std::vector<Residual> residuals;  // every row, in input order
  std::vector<std::string> notes;   // stated fallbacks and what the logs cannot tell
};

// Throws InvalidArgument when no row of `rows` can be timed by the simulator (nothing to fit).
void check_fittable(const std::vector<Measurement>& rows);

// Fits `base` to `rows` (those with a predictor; others only appear in the residuals).
// `nccl_version` and `algorithm` are what the logs printed ("" when none). Throws as
// check_fittable.
ClusterFit fit_cluster(const net::ClusterSpec& base, const std::vector<Measurement>& rows,
                       const std::string& nccl_version, const std::string& algorithm);

// `row`'s time predicted on `cluster` shaped as the row ran.
double predict_on(const net::ClusterSpec& cluster, const Measurement& row);

// Copies the values the fit sets (the four parameters, NCCL_ALGO, the NCCL version) from
// `fitted` onto `cluster`: a row whose cluster differs in more than its shape (e.g. its own
// streams per peer) is predicted on its own cluster with the fitted values.
void apply_fitted(const net::ClusterSpec& fitted, net::ClusterSpec& cluster);

}  // namespace compopt::calibration
