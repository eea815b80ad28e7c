#include "sim/band_coverage.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/util/median.h"

namespace compopt::sim {

double BandedPrediction::half_width_pct() const {
  return 100 * std::max(high - expected, expected - low) / expected;
}

BandCoverage band_coverage(const std::vector<BandedPrediction>& predictions) {
  BandCoverage c;
  std::vector<double> widths;
  for (const BandedPrediction& p : predictions) {
    c.inside += p.inside() ? 1 : 0;
    widths.push_back(p.half_width_pct());
  }
  c.rows = static_cast<int>(predictions.size());
  c.median_half_width_pct = median_abs(widths);
  c.widest_half_width_pct = widths.empty() ? 0 : *std::max_element(widths.begin(), widths.end());
  return c;
}

void to_json(nlohmann::json& j, const BandCoverage& c) {
  j = nlohmann::json{{"inside", c.inside},
                     {"rows", c.rows},
                     {"coverage", c.fraction()},
                     {"median_half_width_pct", c.median_half_width_pct},
                     {"widest_half_width_pct", c.widest_half_width_pct}};
}

}  // namespace compopt::sim
