#pragma once
// How well the low..high band of a set of predictions (step_spread.h, input_ranges.h) covers
// the measured values (`compopt validate cross-validate` and `public-checks`,
// docs/validation.md): the fraction of rows whose measured value lies inside its band, and the
// band's half-width, the larger of its two sides as a percentage of the expected value (a band
// of 90..120 around 100 is +-20%).

#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace compopt::sim {

struct BandedPrediction {
  double measured = 0, expected = 0, low = 0, high = 0;
  bool inside() const { return low <= measured && measured <= high; }
  double half_width_pct() const;  // the larger side, % of expected
};

struct BandCoverage {
  int inside = 0, rows = 0;
  double median_half_width_pct = 0, widest_half_width_pct = 0;
  double fraction() const { return rows ? static_cast<double>(inside) / rows : 0; }
};

// The coverage of `predictions`; all zero when there are none.
BandCoverage band_coverage(const std::vector<BandedPrediction>& predictions);

// A coverage as run.json states it: inside, rows, coverage, median_half_width_pct,
// widest_half_width_pct.
void to_json(nlohmann::json& j, const BandCoverage& c);

}  // namespace compopt::sim
