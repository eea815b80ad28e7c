#pragma once
// Least-squares fit of a GPU's utilisation curve (gpu_spec.h) to measured pass times:
// each observation is one pass (or the sum of several) of `flops` FLOPs over `layers`
// layer-passes that took `seconds`; the model is
//   seconds = layers x layer_overhead_s + flops / (peak x max_utilization).
// The fit is linear in (layer_overhead_s, 1 / (peak x max_utilization)); a solution above the
// peak is clamped to max_utilization = 1 and the overhead refitted, and a negative overhead to
// 0. docs/calibration.md ("Compute") lists the fits of the GPU presets; tests check that the
// presets hold these fits.

#include <vector>

namespace compopt::net {

struct PassObservation {
  double layers = 0;  // layer-passes (layers x passes)
  double flops = 0;
  double seconds = 0;
};

struct UtilizationFit {
  double max_utilization = 0, layer_overhead_s = 0;
  std::vector<double> error_pct;  // (predicted - measured) / measured per observation
  double median_abs_error_pct() const;
  double max_abs_error_pct() const;
};

// Throws InvalidArgument for fewer than 2 observations or a non-positive peak.
UtilizationFit fit_utilization(const std::vector<PassObservation>& observations, double peak_flops);

}  // namespace compopt::net
