// The band's coverage of measured values (sim/band_coverage.h), by hand.

#include "sim/band_coverage.h"

#include <gtest/gtest.h>

namespace compopt::sim {
namespace {

TEST(BandCoverage, CountsInsideAndTakesTheLargerSideAsHalfWidth) {
  const std::vector<BandedPrediction> rows = {
      {105, 100, 90, 120},   // inside; sides 10 and 20: +-20%
      {80, 100, 95, 104},    // below; +-5%
      {50, 50, 50, 50},      // on a zero-width band: inside, 0%
      {130, 100, 100, 130},  // on the high edge: inside, +-30%
  };
  EXPECT_DOUBLE_EQ(rows[0].half_width_pct(), 20);
  const BandCoverage c = band_coverage(rows);
  EXPECT_EQ(c.inside, 3);
  EXPECT_EQ(c.rows, 4);
  EXPECT_DOUBLE_EQ(c.fraction(), 0.75);
  EXPECT_DOUBLE_EQ(c.median_half_width_pct, 12.5);  // (5 + 20) / 2
  EXPECT_DOUBLE_EQ(c.widest_half_width_pct, 30);
  const BandCoverage none = band_coverage({});
  EXPECT_EQ(none.rows, 0);
  EXPECT_EQ(none.fraction(), 0);
}

}  // namespace
}  // namespace compopt::sim
