#include "experiments/calibration/alpha_beta.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/util/error.h"
#include "core/util/median.h"

namespace compopt::calibration {

AlphaBeta fit_alpha_beta(const std::vector<const Measurement*>& rows) {
  std::set<double> sizes;
  for (const Measurement* m : rows) sizes.insert(m->bytes);
  if (sizes.size() < 2)
    throw InvalidArgument(
        fmt::format("alpha-beta fit: {} distinct size(s), expected >= 2", sizes.size()));
  // Normal equations of min sum ((alpha + b x beta) / t - 1)^2 over (alpha, beta).
  double aa = 0, ab = 0, bb = 0, a1 = 0, b1 = 0;
  for (const Measurement* m : rows) {
    const double x = 1 / m->seconds, y = m->bytes / m->seconds;
    aa += x * x, ab += x * y, bb += y * y, a1 += x, b1 += y;
  }
  AlphaBeta fit;
  const double det = aa * bb - ab * ab;
  fit.alpha_s = (a1 * bb - b1 * ab) / det;
  fit.beta_s_per_byte = (aa * b1 - ab * a1) / det;
  if (fit.alpha_s < 0) {  // latency below what the rows can show: bandwidth only
    fit.alpha_s = 0;
    fit.beta_s_per_byte = b1 / bb;
  }
  // No bandwidth to see: the largest row's transfer is under 1% of the latency.
  if (fit.beta_s_per_byte * *sizes.rbegin() < 0.01 * fit.alpha_s) {
    fit.beta_s_per_byte = 0;
    fit.alpha_s = a1 / aa;
  }
  const Measurement& any = *rows.front();
  if (fit.beta_s_per_byte > 0)
    fit.busbw_gbps = bus_factor(any.collective, any.ranks()) / fit.beta_s_per_byte / 1e9;
  std::vector<double> errors;
  errors.reserve(rows.size());
  for (const Measurement* m : rows)
    errors.push_back(100.0 * ((fit.alpha_s + m->bytes * fit.beta_s_per_byte) / m->seconds - 1));
  fit.median_error_pct = median_abs(errors);
  return fit;
}

}  // namespace compopt::calibration
