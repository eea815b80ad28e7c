// `binary` (Birder) compressor: split invariance, a per-element reference built directly on
// RandomKey::uniform, unbiasedness within a tolerance from the variance bound, deterministic
// p = 0 / p = 1, clamping, and the NaN signal.
#include "core/compress/binary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/util/error.h"

namespace compopt {
namespace {

std::vector<float> ramp(size_t k) {
  std::vector<float> x(k);
  for (size_t j = 0; j < k; ++j) x[j] = std::sin(1.3f * static_cast<float>(j));  // in [-1, 1]
  return x;
}

TEST(BinaryCompressor, Properties) {
  const BinaryCompressor c;
  EXPECT_EQ(c.name(), "binary");
  EXPECT_FALSE(c.has_scale());
  EXPECT_TRUE(c.is_stochastic());
  for (size_t k : {0u, 1u, 7u, 8u, 9u, 1000001u}) {
    EXPECT_EQ(c.payload_bytes(k), (k + 7) / 8);
    EXPECT_EQ(c.wire_bytes(k), (k + 7) / 8);
  }
}

TEST(BinaryCompressor, MatchesPerElementReference) {
  // b_j = 1 iff uniform(index_offset + j) < clamp((x_j + 1)/2, 0, 1), bit j%8 of byte j/8.
  const BinaryCompressor c;
  const std::vector<float> x = ramp(1000);
  const RandomKey key{.seed = 77, .step = 3, .rank = 2, .stream = 1, .index_offset = 12345};
  std::vector<std::byte> payload(c.payload_bytes(x.size()));
  EXPECT_EQ(c.encode(x, payload, key), 1.0f);
  for (size_t j = 0; j < x.size(); ++j) {
    const float p = (x[j] + 1.0f) / 2.0f;
    const bool expected = key.uniform(key.index_offset + j) < p;
    const bool got = ((static_cast<unsigned>(payload[j / 8]) >> (j % 8)) & 1u) != 0;
    ASSERT_EQ(got, expected) << j;
  }
  std::vector<float> out(x.size());
  c.decode(1.0f, payload, out);
  for (size_t j = 0; j < x.size(); ++j) {
    const bool bit = ((static_cast<unsigned>(payload[j / 8]) >> (j % 8)) & 1u) != 0;
    ASSERT_EQ(out[j], bit ? 1.0f : -1.0f);
  }
}

TEST(BinaryCompressor, IndependentOfSplit) {
  const BinaryCompressor c;
  const std::vector<float> x = ramp(1037);
  RandomKey key{.seed = 5, .step = 11, .rank = 1, .stream = 0, .index_offset = 64};
  std::vector<std::byte> whole(c.payload_bytes(x.size()));
  c.encode(x, whole, key);
  std::vector<float> whole_out(x.size());
  c.decode(1.0f, whole, whole_out);

  // Byte-aligned pieces: the payloads concatenate to the whole payload.
  const std::vector<size_t> cuts8 = {0, 8, 16, 264, 520, 1000, 1037};
  std::vector<std::byte> joined;
  for (size_t i = 0; i + 1 < cuts8.size(); ++i) {
    const auto piece = std::span<const float>(x).subspan(cuts8[i], cuts8[i + 1] - cuts8[i]);
    RandomKey piece_key = key;
    piece_key.index_offset = key.index_offset + cuts8[i];
    std::vector<std::byte> payload(c.payload_bytes(piece.size()));
    c.encode(piece, payload, piece_key);
    joined.insert(joined.end(), payload.begin(), payload.end());
  }
  EXPECT_EQ(joined, whole);

  // Arbitrary pieces: decoded values concatenate to the whole decode.
  const std::vector<size_t> cuts = {0, 1, 4, 11, 300, 301, 777, 1037};
  std::vector<float> joined_out;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const auto piece = std::span<const float>(x).subspan(cuts[i], cuts[i + 1] - cuts[i]);
    RandomKey piece_key = key;
    piece_key.index_offset = key.index_offset + cuts[i];
    std::vector<float> out(piece.size());
    c.round_trip(piece, out, piece_key);
    joined_out.insert(joined_out.end(), out.begin(), out.end());
  }
  EXPECT_EQ(joined_out, whole_out);
}

TEST(BinaryCompressor, UnbiasedOverSteps) {
  // Var[decode_j] = 1 - x_j^2 <= 1, so the mean over T steps is within 4/sqrt(T) of x_j with
  // overwhelming probability (draws are deterministic, so this cannot flake).
  const BinaryCompressor c;
  const std::vector<float> x = {-1.0f, -0.9f, -0.5f,  -0.1f, 0.0f,   0.05f,  0.3f, 0.77f,
                                0.99f, 1.0f,  -0.33f, 0.66f, 0.125f, -0.75f, 0.5f, 0.9f};
  constexpr int kTrials = 20000;
  std::vector<double> sum(x.size(), 0.0);
  std::vector<float> out(x.size());
  for (int t = 0; t < kTrials; ++t) {
    const RandomKey key{
        .seed = 2024, .step = static_cast<uint64_t>(t), .rank = 0, .stream = 0, .index_offset = 0};
    c.round_trip(x, out, key);
    for (size_t j = 0; j < x.size(); ++j) sum[j] += out[j];
  }
  const double tolerance = 4.0 / std::sqrt(static_cast<double>(kTrials));
  for (size_t j = 0; j < x.size(); ++j) {
    EXPECT_NEAR(sum[j] / kTrials, x[j], tolerance) << "x = " << x[j];
  }
}

TEST(BinaryCompressor, EndpointsAreDeterministicAndOutsideValuesClamp) {
  const BinaryCompressor c;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {-1.0f, 1.0f, -3.0f, 2.5f, -inf, inf, -1e30f, 1e30f, 1.0f};
  const std::vector<float> expected = {-1, 1, -1, 1, -1, 1, -1, 1, 1};
  std::vector<float> out(x.size());
  for (uint64_t step = 0; step < 200; ++step) {
    const RandomKey key{.seed = 1, .step = step, .rank = 0, .stream = 0, .index_offset = step};
    EXPECT_EQ(c.round_trip(x, out, key), 1.0f);
    ASSERT_EQ(out, expected) << "step " << step;
  }
}

TEST(BinaryCompressor, DependsOnEveryKeyField) {
  const BinaryCompressor c;
  const std::vector<float> x(256, 0.0f);  // p = 1/2: bits are the raw coin flips
  const RandomKey base{.seed = 1, .step = 2, .rank = 3, .stream = 0, .index_offset = 0};
  std::vector<std::byte> ref(c.payload_bytes(x.size()));
  c.encode(x, ref, base);
  std::vector<RandomKey> variants(5, base);
  variants[0].seed = 2;
  variants[1].step = 3;
  variants[2].rank = 4;
  variants[3].stream = 1;
  variants[4].index_offset = 256;
  for (const RandomKey& key : variants) {
    std::vector<std::byte> payload(c.payload_bytes(x.size()));
    c.encode(x, payload, key);
    EXPECT_NE(payload, ref);
  }
}

TEST(BinaryCompressor, NanInputIsSignalledByTheReturnValue) {
  const BinaryCompressor c;
  const std::vector<float> x = {1.0f, std::numeric_limits<float>::quiet_NaN(), 1.0f};
  std::vector<std::byte> payload(1);
  EXPECT_TRUE(std::isnan(c.encode(x, payload, RandomKey{})));
  EXPECT_EQ(payload[0], std::byte{0x05});  // NaN element encodes as bit 0 (-1)
}

TEST(BinaryCompressor, RejectsWrongPayloadSize) {
  const BinaryCompressor c;
  std::vector<float> x(17);
  std::vector<std::byte> payload(2);
  EXPECT_THROW(c.encode(x, payload, RandomKey{}), InvalidArgument);
  EXPECT_THROW(c.decode(1.0f, payload, x), InvalidArgument);
}

}  // namespace
}  // namespace compopt
