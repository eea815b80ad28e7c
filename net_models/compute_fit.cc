#include "net_models/compute_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/util/error.h"
#include "core/util/median.h"

namespace compopt::net {

double UtilizationFit::median_abs_error_pct() const { return median_abs(error_pct); }

double UtilizationFit::max_abs_error_pct() const {
  double worst = 0;
  for (double e : error_pct) worst = std::max(worst, std::abs(e));
  return worst;
}

namespace {

// Least squares of seconds = a x layers + c x flops with one of them fixed (fixed >= 0) or
// both free (fixed < 0 for both).
std::pair<double, double> solve(const std::vector<PassObservation>& obs, double fixed_a,
                                double fixed_c) {
  double ll = 0, lf = 0, ff = 0, ly = 0, fy = 0;
  for (const PassObservation& o : obs) {
    ll += o.layers * o.layers;
    lf += o.layers * o.flops;
    ff += o.flops * o.flops;
    ly += o.layers * o.seconds;
    fy += o.flops * o.seconds;
  }
  if (fixed_c >= 0) return {ll > 0 ? (ly - fixed_c * lf) / ll : 0, fixed_c};
  if (fixed_a >= 0) return {fixed_a, (fy - fixed_a * lf) / ff};
  const double det = ll * ff - lf * lf;
  return {(ly * ff - fy * lf) / det, (ll * fy - lf * ly) / det};
}

}  // namespace

UtilizationFit fit_utilization(const std::vector<PassObservation>& observations,
                               double peak_flops) {
  if (observations.size() < 2 || !(peak_flops > 0)) {
    throw InvalidArgument(
        fmt::format("fit_utilization: {} observations and peak {}, expected "
                    ">= 2 and > 0",
                    observations.size(), peak_flops));
  }
  auto [a, c] = solve(observations, -1, -1);
  if (c < 1 / peak_flops) std::tie(a, c) = solve(observations, -1, 1 / peak_flops);
  if (a < 0) {
    a = 0;
    c = std::max(1 / peak_flops, solve(observations, 0, -1).second);
  }
  UtilizationFit fit;
  fit.layer_overhead_s = a;
  fit.max_utilization = 1 / (c * peak_flops);
  for (const PassObservation& o : observations) {
    const double predicted = a * o.layers + c * o.flops;
    fit.error_pct.push_back(100 * (predicted - o.seconds) / o.seconds);
  }
  return fit;
}

}  // namespace compopt::net
