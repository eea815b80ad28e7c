// `nbit:B` compressor: hand-derived bitstreams for B = 2, 3, 4, stochastic rounding against
// RandomKey draws, unbiasedness, wire sizes and edge cases.
#include "core/compress/nbit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/util/error.h"

namespace compopt {
namespace {

std::vector<std::byte> bytes(std::initializer_list<unsigned> values) {
  std::vector<std::byte> out;
  for (unsigned v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

TEST(NbitCompressor, PropertiesAndWireBytes) {
  for (unsigned b = 2; b <= 16; ++b) {
    const NbitCompressor c(b);
    EXPECT_EQ(c.name(), "nbit:" + std::to_string(b));
    EXPECT_EQ(c.levels(), (1u << (b - 1)) - 1);
    EXPECT_TRUE(c.has_scale());
    EXPECT_TRUE(c.is_stochastic());
    for (size_t k : {0u, 1u, 3u, 7u, 8u, 9u, 1000u}) {
      EXPECT_EQ(c.wire_bytes(k), (k * b + 7) / 8 + 4) << b << " " << k;
    }
  }
  EXPECT_EQ(NbitCompressor(2).levels(), 1u);
  EXPECT_EQ(NbitCompressor(8).levels(), 127u);
  EXPECT_EQ(NbitCompressor(3).wire_bytes(9), 8u);  // 27 bits -> 4 bytes + scale
  EXPECT_THROW(NbitCompressor(1), InvalidArgument);
  EXPECT_THROW(NbitCompressor(17), InvalidArgument);
}

TEST(NbitCompressor, HandExampleTwoBits) {
  // B = 2, L = 1, s = 2: levels 1,1,0,0,1, signs 0,1,0,0,0 -> fields (sign | level<<1)
  // 2,3,0,0,2 -> stream 10 11 00 00 | 10 -> bytes 0x0E, 0x02.
  const NbitCompressor c(2);
  const std::vector<float> x = {2.0f, -2.0f, 0.0f, -0.0f, 2.0f};
  std::vector<std::byte> payload(2, std::byte{0xFF});
  EXPECT_EQ(c.encode(x, payload, RandomKey{}), 2.0f);
  EXPECT_EQ(payload, bytes({0x0E, 0x02}));
  std::vector<float> out(5);
  c.decode(2.0f, payload, out);
  EXPECT_EQ(out, (std::vector<float>{2.0f, -2.0f, 0.0f, 0.0f, 2.0f}));
}

TEST(NbitCompressor, HandExampleFourBits) {
  // B = 4, L = 7, s = 7: levels 7,3,1,7,0,5, signs 0,1,0,1,0,0 -> fields 14,7,2,15,0,10
  // -> nibbles LSB first: 0x7E, 0xF2, 0xA0.
  const NbitCompressor c(4);
  const std::vector<float> x = {7.0f, -3.0f, 1.0f, -7.0f, 0.0f, 5.0f};
  std::vector<std::byte> payload(3);
  EXPECT_EQ(c.encode(x, payload, RandomKey{}), 7.0f);
  EXPECT_EQ(payload, bytes({0x7E, 0xF2, 0xA0}));
  std::vector<float> out(6);
  c.decode(7.0f, payload, out);
  EXPECT_EQ(out, x);
}

TEST(NbitCompressor, HandExampleThreeBitsCrossesBytes) {
  // B = 3, L = 3, s = 3: fields 6,7,2,5,0,6,3,4,6 in 27 stream bits -> 0xBE, 0x0A, 0x8F, 0x06.
  const NbitCompressor c(3);
  const std::vector<float> x = {3, -3, 1, -2, 0, 3, -1, 2, 3};
  std::vector<std::byte> payload(4);
  EXPECT_EQ(c.encode(x, payload, RandomKey{}), 3.0f);
  EXPECT_EQ(payload, bytes({0xBE, 0x0A, 0x8F, 0x06}));
  std::vector<float> out(9);
  c.decode(3.0f, payload, out);
  EXPECT_EQ(out, x);
}

TEST(NbitCompressor, StochasticRoundingUsesKeyedDraws) {
  // B = 2, s = 2: |x| = 1 gives t = 1/2, level 1 iff uniform(offset + j) < 1/2.
  const NbitCompressor c(2);
  const std::vector<float> x = {2.0f, -1.0f, 1.0f, 1.0f, -1.0f, 1.0f, -1.0f, 1.0f};
  const RandomKey key{.seed = 3, .step = 4, .rank = 5, .stream = 2, .index_offset = 1001};
  std::vector<std::byte> payload(2);
  c.encode(x, payload, key);
  std::vector<float> out(x.size());
  c.decode(2.0f, payload, out);
  EXPECT_EQ(out[0], 2.0f);
  for (size_t j = 1; j < x.size(); ++j) {
    const bool up = key.uniform(key.index_offset + j) < 0.5f;
    EXPECT_EQ(out[j], up ? std::copysign(2.0f, x[j]) : std::copysign(0.0f, x[j])) << j;
  }
}

TEST(NbitCompressor, UnbiasedOverSteps) {
  // decode_j is s/L times a level that is floor(t) or floor(t)+1, so its standard deviation is
  // at most s/(2L); the mean over T steps lies within 4 * s/(2L) / sqrt(T) of x_j.
  for (unsigned b : {2u, 4u, 8u}) {
    const NbitCompressor c(b);
    const std::vector<float> x = {-1.0f, -0.9f, -0.5f, -0.1f, 0.0f, 0.05f, 0.3f, 0.77f, 0.99f};
    constexpr int kTrials = 20000;
    std::vector<double> sum(x.size(), 0.0);
    std::vector<float> out(x.size());
    for (int t = 0; t < kTrials; ++t) {
      const RandomKey key{
          .seed = 99, .step = static_cast<uint64_t>(t), .rank = 0, .stream = 0, .index_offset = 0};
      EXPECT_EQ(c.round_trip(x, out, key), 1.0f);
      for (size_t j = 0; j < x.size(); ++j) sum[j] += out[j];
    }
    const double sd = 1.0 / (2.0 * c.levels());
    for (size_t j = 0; j < x.size(); ++j) {
      EXPECT_NEAR(sum[j] / kTrials, x[j], 4.0 * sd / std::sqrt(kTrials) + 1e-6)
          << "B = " << b << ", x = " << x[j];
    }
  }
}

TEST(NbitCompressor, MaxMagnitudeDecodesExactly) {
  const NbitCompressor c(8);
  const std::vector<float> x = {0.1f, -0.3f, 0.7f, -0.7f};
  std::vector<float> out(4);
  EXPECT_EQ(c.round_trip(x, out, RandomKey{}), 0.7f);
  EXPECT_EQ(out[2], 0.7f);
  EXPECT_EQ(out[3], -0.7f);
}

TEST(NbitCompressor, ZeroAndEmptyVectors) {
  const NbitCompressor c(5);
  const std::vector<float> x(11, 0.0f);
  std::vector<float> out(11, 3.0f);
  EXPECT_EQ(c.round_trip(x, out, RandomKey{}), 0.0f);
  for (float v : out) EXPECT_EQ(v, 0.0f);
  std::vector<std::byte> none;
  EXPECT_EQ(c.encode(std::span<const float>(), none, RandomKey{}), 0.0f);
}

TEST(NbitCompressor, NonFiniteInputsGiveNonFiniteScaleAndNanDecode) {
  const NbitCompressor c(4);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> out(3);
  EXPECT_EQ(c.round_trip(std::vector<float>{1.0f, -inf, 2.0f}, out, RandomKey{}), inf);
  for (float v : out) EXPECT_TRUE(std::isnan(v));
  EXPECT_TRUE(std::isnan(c.round_trip(std::vector<float>{inf, nan, 2.0f}, out, RandomKey{})));
  for (float v : out) EXPECT_TRUE(std::isnan(v));
}

TEST(NbitCompressor, ChunkCutWithSharedScale) {
  // For k a multiple of 8, chunk i of the payload is bytes [i*k*B/8, (i+1)*k*B/8).
  const NbitCompressor c(3);
  std::vector<float> x(64);
  for (size_t j = 0; j < x.size(); ++j) x[j] = std::sin(0.9f * static_cast<float>(j));
  std::vector<std::byte> payload(c.payload_bytes(64));
  const RandomKey key{.seed = 8, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  const float s = c.encode(x, payload, key);
  std::vector<float> whole(64);
  c.decode(s, payload, whole);
  for (size_t i = 0; i < 4; ++i) {
    std::vector<float> part(16);
    c.decode(s, std::span<const std::byte>(payload).subspan(i * 6, 6), part);
    for (size_t j = 0; j < 16; ++j) ASSERT_EQ(part[j], whole[16 * i + j]);
  }
}

}  // namespace
}  // namespace compopt
