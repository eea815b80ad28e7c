#pragma once
// The network calibration as code (docs/calibration.md): the free link parameters of the two
// paper cluster presets fitted to the rows of 1-bit Adam's Table 1 (net::ProfileRow), with the
// step simulator in the loop, and leave-one-out cross-validation of that fit.
//
// Per cluster, each parameter is fitted only on the rows given that it governs:
//   intra_node_efficiency   the 1-node rows
//   inter_node_efficiency   the multi-node rows (both presets are stars; NCCL's algorithm
//                           choice, ring or tree, is part of each row's simulation)
// in this order, each given the ones before. The fit is a multiplicative fixed-point search:
// the parameter is multiplied by the geometric mean over its rows of predicted / published
// allreduce time until that mean is 1 within 1e-6 (time ~ latency + bytes / bandwidth, so this
// converges in a few simulations per row). A parameter left without rows falls back, and says so:
//   intra_node_efficiency   the other cluster's fit (the only other GPU-link measurement)
//   inter_node_efficiency   the nominal NIC (efficiency 1): the clusters' fabrics differ

#include <string>
#include <vector>

#include "net_models/calibration_rows.h"
#include "net_models/cluster_spec.h"

namespace compopt::sim {

struct FittedParameter {
  std::string cluster, name;
  double value = 0;
  int rows = 0;          // rows it was fitted on
  std::string fallback;  // empty when fitted; else what it took instead and why
};

struct NetworkFit {
  std::vector<net::ClusterSpec> clusters;  // each calibrated preset with its fitted parameters
  std::vector<FittedParameter> parameters;
  const net::ClusterSpec& cluster(const std::string& name) const;  // throws if not fitted
};

// The calibrated presets named by the kFittedClusters table (ethernet-v100-4,
// infiniband-v100-8), fitted on `rows` (any subset of the published rows).
NetworkFit fit_network(const std::vector<net::ProfileRow>& rows);

// The value a preset holds for a fitted parameter's name (to compare the fit with it).
double preset_parameter(const net::ClusterSpec& spec, const std::string& name);

// Simulated baseline-Adam allreduce time of a row on `cluster` (the row's GPUs), in ms.
double predicted_allreduce_ms(const net::ClusterSpec& cluster, const net::ProfileRow& row);

struct HeldOutRow {
  size_t row = 0;  // 1-based, as docs/calibration.md numbers the rows
  net::ProfileRow published;
  double predicted_ms = 0;
  // The band of predicted_ms over the fitted cluster's network inputs (input_ranges.h).
  double low_ms = 0, high_ms = 0;
  double error_pct = 0;                // (predicted - published) / published
  std::vector<std::string> fallbacks;  // the fit's fallbacks, "" when none
};

// For each row: fit on all the others, predict it.
std::vector<HeldOutRow> cross_validate(const std::vector<net::ProfileRow>& rows);

}  // namespace compopt::sim
