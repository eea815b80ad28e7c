#include "sim/model_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/util/error.h"

namespace compopt::sim {

const ModelError& model_error() {
  // `compopt validate model-error` on 2026-11-29: the 21st smallest of 25 relative misses (13
  // leave-one-out rows, 12 public nccl-tests cases); its test fails when a model change moves it.
  constexpr double kFraction = 0.1255;
  constexpr int kRows = 25;
  static const ModelError term{
      kFraction, kRows,
      fmt::format("model error +-{:.1f}% (the {:.0f}% conformal quantile of the misses of {} "
                  "out-of-sample rows, compopt validate model-error)",
                  100 * kFraction, 100 * kModelErrorCoverage, kRows)};
  return term;
}

double relative_miss(const BandedPrediction& p) {
  return std::abs(p.measured - p.expected) / p.expected;
}

double conformal_quantile(std::vector<double> scores, double coverage) {
  if (!(coverage > 0 && coverage < 1))
    throw InvalidArgument(fmt::format("conformal coverage {}, expected in (0, 1)", coverage));
  for (double s : scores) {
    if (!(s >= 0) || !std::isfinite(s))
      throw InvalidArgument(fmt::format("conformal score {}, expected finite and >= 0", s));
  }
  const auto n = static_cast<double>(scores.size());
  const auto rank = static_cast<size_t>(std::ceil((n + 1) * coverage - 1e-12));
  if (rank == 0 || rank > scores.size()) return std::numeric_limits<double>::infinity();
  std::nth_element(scores.begin(), scores.begin() + static_cast<long>(rank - 1), scores.end());
  return scores[rank - 1];
}

Band with_model_error(const Band& inputs, double expected, double fraction) {
  const double term = fraction * expected;
  return {std::max(0.0, expected - std::hypot(expected - inputs.low, term)),
          expected + std::hypot(inputs.high - expected, term)};
}

Band predicted_time_band(double expected, const std::vector<std::pair<double, double>>& ends) {
  return with_model_error(band_of(expected, ends), expected, model_error().fraction);
}

std::vector<HeldOutBand> held_out_model_error_bands(const std::vector<BandedPrediction>& rows,
                                                    double coverage) {
  std::vector<double> misses;
  misses.reserve(rows.size());
  for (const BandedPrediction& r : rows) misses.push_back(relative_miss(r));
  std::vector<HeldOutBand> out;
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<double> others = misses;
    others.erase(others.begin() + static_cast<long>(i));
    const double fraction = conformal_quantile(std::move(others), coverage);
    const BandedPrediction& r = rows[i];
    const Band b = with_model_error({r.low, r.high}, r.expected, fraction);
    out.push_back({{r.measured, r.expected, b.low, b.high}, fraction});
  }
  return out;
}

}  // namespace compopt::sim
