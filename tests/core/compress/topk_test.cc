// topk:R: hand-derived selections (ties to the lower index, k = 0, R = 1 is the identity),
// the exact wire format and size, error feedback reconstructing its input exactly, and
// rejected specs and payloads.
#include "core/compress/topk.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/compress/error_feedback.h"
#include "core/util/error.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

std::vector<float> round_trip(const Compressor& c, const std::vector<float>& x) {
  std::vector<float> out(x.size(), -7.0f);
  EXPECT_EQ(c.round_trip(x, out, RandomKey{}), 1.0f);
  return out;
}

TEST(Topk, KeepsTheLargestMagnitudesAndZerosTheRest) {
  // n = 8, R = 0.25: k = 2; |x| = 1, 5, 0.5, 4, 5, 2, 0, 3 -> indices 1 and 4 (5 and -5).
  const TopkCompressor c(0.25);
  EXPECT_EQ(c.kept(8), 2u);
  EXPECT_EQ(round_trip(c, {1, 5, -0.5f, 4, -5, 2, 0, -3}),
            (std::vector<float>{0, 5, 0, 0, -5, 0, 0, 0}));
}

TEST(Topk, TiesGoToTheLowerIndex) {
  // k = ceil(0.5 * 5) = 3 among five elements of equal magnitude: indices 0, 1, 2.
  const TopkCompressor c(0.5);
  EXPECT_EQ(c.kept(5), 3u);
  EXPECT_EQ(round_trip(c, {2, -2, 2, -2, 2}), (std::vector<float>{2, -2, 2, 0, 0}));
  // A larger magnitude wins over a lower index; among the rest the lower index wins.
  EXPECT_EQ(round_trip(c, {1, 1, 1, 1, 9}), (std::vector<float>{1, 1, 0, 0, 9}));
}

TEST(Topk, CountsFollowTheRatio) {
  const TopkCompressor one_percent;
  EXPECT_EQ(one_percent.ratio(), 0.01);
  EXPECT_EQ(one_percent.kept(0), 0u);
  EXPECT_EQ(one_percent.kept(1), 1u);           // ceil(0.01)
  EXPECT_EQ(one_percent.kept(100), 1u);         // exactly 1
  EXPECT_EQ(one_percent.kept(101), 2u);         // ceil(1.01)
  EXPECT_EQ(TopkCompressor(0.1).kept(30), 3u);  // 0.1 * 30 is 3.0000000000000004 in double
  EXPECT_EQ(TopkCompressor(0.3).kept(10), 3u);
  EXPECT_EQ(TopkCompressor(1.0).kept(7), 7u);
}

TEST(Topk, EmptyVectorSendsOnlyTheCount) {
  const TopkCompressor c(0.5);
  EXPECT_EQ(c.wire_bytes(0), 4u);
  std::vector<std::byte> payload(4);
  c.encode({}, payload, RandomKey{});
  uint32_t count = 99;
  std::memcpy(&count, payload.data(), 4);
  EXPECT_EQ(count, 0u);
  c.decode(1.0f, payload, {});
}

TEST(Topk, RatioOneIsTheIdentity) {
  const TopkCompressor c(1.0);
  const std::vector<float> x = {0.5f, -3, 0, 1e-30f, -0.0f, 7};
  const std::vector<float> y = round_trip(c, x);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(std::signbit(y[i]), std::signbit(x[i])) << i;
  EXPECT_EQ(y, x);
}

TEST(Topk, WireFormatIsCountThenIndexValuePairs) {
  const TopkCompressor c(0.5);
  const std::vector<float> x = {0.25f, -8, 1, 3};  // k = 2: indices 1 (-8) and 3 (3)
  EXPECT_EQ(c.payload_bytes(4), 4u + 2 * 8);
  EXPECT_EQ(c.wire_bytes(4), 20u);
  EXPECT_FALSE(c.has_scale());
  EXPECT_FALSE(c.is_stochastic());
  EXPECT_FALSE(c.chunkable());
  std::vector<std::byte> payload(20);
  c.encode(x, payload, RandomKey{});
  uint32_t words[5];
  std::memcpy(words, payload.data(), 20);
  EXPECT_EQ(words[0], 2u);
  EXPECT_EQ(words[1], 1u);
  EXPECT_EQ(words[3], 3u);
  float values[2];
  std::memcpy(&values[0], &words[2], 4);
  std::memcpy(&values[1], &words[4], 4);
  EXPECT_EQ(values[0], -8.0f);
  EXPECT_EQ(values[1], 3.0f);
  // 1000 elements at 1%: 4 + 8 * 10 bytes.
  EXPECT_EQ(TopkCompressor().wire_bytes(1000), 84u);
}

TEST(Topk, NanIsAlwaysSent) {
  const TopkCompressor c(0.25);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> y = round_trip(c, {std::numeric_limits<float>::infinity(), 1, nan, 2});
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[0], 0.0f);
}

TEST(Topk, ErrorFeedbackReconstructsTheInputExactly) {
  // Top-k decodes each kept element to itself, so y = decode + e holds exactly, and the
  // dropped mass carries over: after two steps of x the error holds what was never sent.
  const TopkCompressor c(0.25);
  ErrorFeedback ef(8);
  const std::vector<float> x = {1, -2, 3, -4, 0.5f, 0.25f, -6, 8};
  std::vector<float> y(8), decoded(8);
  for (int step = 0; step < 3; ++step) {
    ef.compensate(x, y);
    c.round_trip(y, decoded, RandomKey{});
    ef.update(y, decoded);
    for (size_t i = 0; i < 8; ++i) EXPECT_EQ(y[i], decoded[i] + ef.error()[i]) << step << i;
  }
  // Step 1 sends 8 and -6; step 2 has y = {2, -4, 6, -8, 1, 0.5, -6, 8} and sends -8 and 8.
  ef.reset();
  ef.compensate(x, y);
  c.round_trip(y, decoded, RandomKey{});
  EXPECT_EQ(decoded, (std::vector<float>{0, 0, 0, 0, 0, 0, -6, 8}));
  ef.update(y, decoded);
  ef.compensate(x, y);
  c.round_trip(y, decoded, RandomKey{});
  EXPECT_EQ(decoded, (std::vector<float>{0, 0, 0, -8, 0, 0, 0, 8}));
}

TEST(Topk, RejectsBadRatiosAndPayloads) {
  EXPECT_THROW(TopkCompressor(0.0), InvalidArgument);
  EXPECT_THROW(TopkCompressor(1.5), InvalidArgument);
  EXPECT_THROW(TopkCompressor(std::nan("")), InvalidArgument);
  const TopkCompressor c(0.5);
  std::vector<float> out(4);
  std::vector<std::byte> payload(20);
  const auto put = [&](size_t word, uint32_t v) { std::memcpy(payload.data() + 4 * word, &v, 4); };
  put(0, 3);  // count 3, expected 2
  EXPECT_THAT([&] { c.decode(1, payload, out); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("count 3")));
  put(0, 2);
  put(1, 2);
  put(3, 2);  // repeated index
  EXPECT_THAT([&] { c.decode(1, payload, out); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("index 2 at position 1")));
  put(3, 4);  // index == n
  EXPECT_THROW(c.decode(1, payload, out), InvalidArgument);
  EXPECT_THROW(c.decode(1, std::span(payload).first(12), out), InvalidArgument);
}

}  // namespace
}  // namespace compopt
