// ErrorFeedback: the telescoping identity sum(decoded) = sum(inputs) - final error, with a
// tolerance built from the rounding of each fp32 add/subtract actually performed.
#include "core/compress/error_feedback.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/compress/compressor.h"
#include "core/util/error.h"

namespace compopt {
namespace {

TEST(ErrorFeedback, StartsAtZeroAndResets) {
  ErrorFeedback ef(5);
  EXPECT_EQ(ef.size(), 5u);
  for (float e : ef.error()) EXPECT_EQ(e, 0.0f);
  ef.mutable_error()[2] = 3.0f;
  ef.reset();
  for (float e : ef.error()) EXPECT_EQ(e, 0.0f);
}

TEST(ErrorFeedback, HandExampleWithSign) {
  // Step 1: y = x = {3,-4,0,-0}, decoded {2.5,-2.5,2.5,2.5}, e = {0.5,-1.5,-2.5,-2.5}.
  const auto sign = make_compressor("sign");
  ErrorFeedback ef(4);
  const std::vector<float> x = {3.0f, -4.0f, 0.0f, -0.0f};
  std::vector<float> y(4), decoded(4);
  ef.compensate(x, y);
  sign->round_trip(y, decoded, RandomKey{});
  ef.update(y, decoded);
  EXPECT_EQ(std::vector<float>(ef.error().begin(), ef.error().end()),
            (std::vector<float>{0.5f, -1.5f, -2.5f, -2.5f}));
  // Step 2 with x = 0: y = e, s = sqrt((0.25 + 2.25 + 6.25 + 6.25)/4) = sqrt(3.75).
  const std::vector<float> zero(4, 0.0f);
  ef.compensate(zero, y);
  EXPECT_EQ(y, (std::vector<float>{0.5f, -1.5f, -2.5f, -2.5f}));
  EXPECT_EQ(sign->round_trip(y, decoded, RandomKey{}), static_cast<float>(std::sqrt(3.75)));
}

class ErrorFeedbackTelescoping : public testing::TestWithParam<std::string> {};

TEST_P(ErrorFeedbackTelescoping, SumOfMessagesIsSumOfInputsMinusFinalError) {
  const auto c = make_compressor(GetParam());
  constexpr size_t kN = 257;
  constexpr int kSteps = 200;
  ErrorFeedback ef(kN);
  std::vector<double> sum_x(kN, 0.0), sum_d(kN, 0.0), bound(kN, 0.0);
  std::vector<float> x(kN), y(kN), decoded(kN);
  constexpr double kUnitRoundoff = 0x1p-24;  // fp32 add/sub error <= u * |result|
  for (int t = 0; t < kSteps; ++t) {
    for (size_t i = 0; i < kN; ++i) {
      // Inputs in [-1, 1] (binary's range) with varied magnitudes.
      x[i] = std::sin(0.31f * static_cast<float>(i) + 1.7f * static_cast<float>(t)) *
             (0.2f + 0.8f * static_cast<float>((i * 7 + t) % 5) / 4.0f);
    }
    ef.compensate(x, y);
    const RandomKey key{
        .seed = 17, .step = static_cast<uint64_t>(t), .rank = 0, .stream = 0, .index_offset = 0};
    const float scale = c->round_trip(y, decoded, key);
    ASSERT_TRUE(std::isfinite(scale));
    ef.update(y, decoded);
    for (size_t i = 0; i < kN; ++i) {
      sum_x[i] += x[i];
      sum_d[i] += decoded[i];
      bound[i] += kUnitRoundoff * (std::fabs(y[i]) + std::fabs(ef.error()[i]));
    }
  }
  for (size_t i = 0; i < kN; ++i) {
    // The double sums themselves add at most ~kSteps * 2^-53 * magnitude; covered by 2x below.
    const double tolerance = 2.0 * bound[i] + 1e-12;
    ASSERT_NEAR(sum_d[i], sum_x[i] - ef.error()[i], tolerance) << GetParam() << " element " << i;
  }
  // EF keeps the error bounded (no drift): it stays far below the accumulated input mass.
  for (size_t i = 0; i < kN; ++i) EXPECT_LT(std::fabs(ef.error()[i]), 50.0f) << i;
}

INSTANTIATE_TEST_SUITE_P(AllCompressors, ErrorFeedbackTelescoping,
                         testing::Values("identity", "fp16", "sign", "binary", "nbit:2", "nbit:8"),
                         [](const testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           for (char& ch : name) {
                             if (ch == ':') ch = '_';
                           }
                           return name;
                         });

TEST(ErrorFeedback, RejectsSizeMismatch) {
  ErrorFeedback ef(4);
  std::vector<float> three(3), four(4);
  EXPECT_THROW(ef.compensate(three, four), InvalidArgument);
  EXPECT_THROW(ef.compensate(four, three), InvalidArgument);
  EXPECT_THROW(ef.update(three, four), InvalidArgument);
  EXPECT_THROW(ef.update(four, three), InvalidArgument);
  try {
    ef.compensate(three, four);
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("3"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("4"), std::string::npos);
  }
}

}  // namespace
}  // namespace compopt
