// The band's model-error term (sim/model_error.h): the conformal quantile, the root-sum-square
// widening and the leave-one-out coverage, each against values worked out by hand.

#include "sim/model_error.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/util/error.h"
#include "sim/step_spread.h"

namespace compopt::sim {
namespace {

TEST(ConformalQuantile, TakesTheCeilOfNPlusOneTimesCoverageSmallest) {
  // n = 9, coverage 0.8: rank ceil(10 x 0.8) = 8, the 8th smallest.
  const std::vector<double> scores = {0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6};
  EXPECT_DOUBLE_EQ(conformal_quantile(scores, 0.8), 0.8);
  // n = 4, coverage 0.5: rank ceil(2.5) = 3.
  EXPECT_DOUBLE_EQ(conformal_quantile({0.04, 0.01, 0.03, 0.02}, 0.5), 0.03);
  // n = 25, coverage 0.8: rank ceil(20.8) = 21, the shipped term's rank.
  std::vector<double> many;
  for (int i = 1; i <= 25; ++i) many.push_back(0.01 * i);
  EXPECT_DOUBLE_EQ(conformal_quantile(many, 0.8), 0.21);
}

TEST(ConformalQuantile, TooFewRowsForTheCoverageIsUnbounded) {
  // n = 3, coverage 0.8: rank ceil(3.2) = 4 > 3.
  EXPECT_TRUE(std::isinf(conformal_quantile({0.1, 0.2, 0.3}, 0.8)));
  EXPECT_TRUE(std::isinf(conformal_quantile({}, 0.5)));
}

TEST(ConformalQuantile, RefusesACoverageOutsideTheOpenIntervalAndABadScore) {
  EXPECT_THROW(conformal_quantile({0.1}, 0), InvalidArgument);
  EXPECT_THROW(conformal_quantile({0.1}, 1), InvalidArgument);
  EXPECT_THROW(conformal_quantile({0.1, -0.2}, 0.5), InvalidArgument);
  EXPECT_THROW(conformal_quantile({0.1, NAN}, 0.5), InvalidArgument);
}

TEST(WithModelError, AddsTheTermToEachSideByRootSumSquare) {
  // Inputs' band 90..120 around 100, term 10%: 100 - sqrt(10^2 + 10^2), 100 + sqrt(20^2 + 10^2).
  const Band b = with_model_error({90, 120}, 100, 0.1);
  EXPECT_DOUBLE_EQ(b.low, 100 - std::sqrt(200.0));
  EXPECT_DOUBLE_EQ(b.high, 100 + std::sqrt(500.0));
  // A band of zero width becomes the term alone.
  const Band pinned = with_model_error({50, 50}, 50, 0.2);
  EXPECT_DOUBLE_EQ(pinned.low, 40);
  EXPECT_DOUBLE_EQ(pinned.high, 60);
  // The low end of a time stops at zero.
  EXPECT_DOUBLE_EQ(with_model_error({1, 1}, 1, 1.5).low, 0);
}

TEST(HeldOutModelErrorBands, EachRowTakesTheTermOfTheOthers) {
  // Misses 1%, 2%, 3%, 4% and 50% of the prediction 100, zero-width input bands, coverage 0.5:
  // each row's term is the 3rd smallest of the other four misses.
  const std::vector<BandedPrediction> rows = {{101, 100, 100, 100},
                                              {98, 100, 100, 100},
                                              {103, 100, 100, 100},
                                              {96, 100, 100, 100},
                                              {150, 100, 100, 100}};
  const std::vector<HeldOutBand> held = held_out_model_error_bands(rows, 0.5);
  ASSERT_EQ(held.size(), 5u);
  const double expected_terms[] = {0.04, 0.04, 0.04, 0.03, 0.03};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_NEAR(held[i].fraction, expected_terms[i], 1e-12) << i;
    EXPECT_NEAR(held[i].band.low, 100 * (1 - expected_terms[i]), 1e-9) << i;
    EXPECT_NEAR(held[i].band.high, 100 * (1 + expected_terms[i]), 1e-9) << i;
    EXPECT_EQ(held[i].band.measured, rows[i].measured);
  }
  // Row 4 (miss 4%) falls outside its 3% band, row 5 (50%) too; the first three are inside.
  EXPECT_TRUE(held[0].band.inside());
  EXPECT_TRUE(held[2].band.inside());
  EXPECT_FALSE(held[3].band.inside());
  EXPECT_FALSE(held[4].band.inside());
  EXPECT_DOUBLE_EQ(relative_miss(rows[4]), 0.5);
}

TEST(ShippedModelError, IsAModestFractionFromTheRowsItNames) {
  const ModelError& term = model_error();
  EXPECT_GT(term.fraction, 0);
  EXPECT_LT(term.fraction, 0.25);  // the band is meant to stay within +-25%
  EXPECT_EQ(term.rows, 25);        // 13 leave-one-out rows and 12 public cases
  EXPECT_NE(term.source.find("validate model-error"), std::string::npos);
}

TEST(FigureBand, ABandWithNoUncertainInputIsTheModelErrorTermAlone) {
  StageTiming stage;
  stage.step_time_s = 2;
  const std::vector<StageTiming> expected = {stage};
  const Band b = figure_band(expected, StepSpread{}, [](const std::vector<StageTiming>& run) {
    return run[0].step_time_s;
  });
  EXPECT_DOUBLE_EQ(b.low, 2 * (1 - model_error().fraction));
  EXPECT_DOUBLE_EQ(b.high, 2 * (1 + model_error().fraction));
}

}  // namespace
}  // namespace compopt::sim
