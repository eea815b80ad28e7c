// Hand-written half conversions against hand-derived values and GCC's _Float16 casts (a second,
// independent implementation: libgcc soft-fp or F16C). A one-off full sweep of all 2^32 float
// patterns matched _Float16 bit for bit (NaNs included) but takes minutes; here a strided sample
// plus every rounding-boundary pattern in and near the half range.
#include "core/compress/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace compopt {
namespace {

uint16_t gcc_half(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }
float gcc_widen(uint16_t h) { return static_cast<float>(std::bit_cast<_Float16>(h)); }
float from_bits(uint32_t b) { return std::bit_cast<float>(b); }

TEST(FloatToHalf, HandDerivedValues) {
  static_assert(float_to_half_bits(1.0f) == 0x3C00);
  EXPECT_EQ(float_to_half_bits(0.0f), 0x0000);
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7BFF);                        // max half
  EXPECT_EQ(float_to_half_bits(std::nextafter(65520.0f, 0.0f)), 0x7BFF);  // just below the tie
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7C00);  // tie between 65504 (odd) and 2^16 -> inf
  EXPECT_EQ(float_to_half_bits(-1e10f), 0xFC00);
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(float_to_half_bits(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(float_to_half_bits(0x1p-14f), 0x0400);         // min normal
  EXPECT_EQ(float_to_half_bits(0x1p-24f), 0x0001);         // min subnormal
  EXPECT_EQ(float_to_half_bits(0x1p-25f), 0x0000);         // tie -> even (0)
  EXPECT_EQ(float_to_half_bits(0x1.8p-24f), 0x0002);       // 1.5 ulp tie -> even (2)
  EXPECT_EQ(float_to_half_bits(0x1.000002p-25f), 0x0001);  // just above the tie
  EXPECT_EQ(float_to_half_bits(0x1.ff8p-15f), 0x03FF);     // max subnormal
  EXPECT_EQ(float_to_half_bits(0x1.ffcp-15f), 0x0400);     // max subnormal + 1/2 ulp: tie -> even
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1p-11f), 0x3C00);  // tie -> even
  EXPECT_EQ(float_to_half_bits(1.0f + 0x3p-11f), 0x3C02);  // tie -> even (up)
  EXPECT_EQ(float_to_half_bits(0.1f), 0x2E66);
  EXPECT_EQ(float_to_half_bits(1e-30f), 0x0000);
  EXPECT_EQ(float_to_half_bits(-1e-30f), 0x8000);
  EXPECT_EQ(float_to_half_bits(from_bits(0x00000001u)), 0x0000);  // float subnormal
  const uint16_t nan = float_to_half_bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  EXPECT_NE(float_to_half_bits(from_bits(0x7F800001u)) & 0x03FF, 0);  // payload only in low bits
  EXPECT_EQ(float_to_half_bits(from_bits(0xFFC00000u)) & 0x8000, 0x8000);  // NaN keeps sign
}

TEST(FloatToHalf, MatchesGccOnStridedSampleOfAllFloats) {
  constexpr uint64_t kStride = 997;  // prime: hits every low-bit residue
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += kStride) {
    const float f = from_bits(static_cast<uint32_t>(b));
    ASSERT_EQ(float_to_half_bits(f), gcc_half(f)) << std::hex << "bits 0x" << b;
  }
}

TEST(FloatToHalf, MatchesGccAtEveryRoundingBoundary) {
  // For every float exponent from far below the half subnormals to above the max half, and both
  // signs: mantissas whose dropped bits are 0, 1, half-1, half, half+1 and all-ones, with many
  // different kept bits (odd and even), in the normal and the subnormal half range.
  for (uint32_t sign : {0u, 0x80000000u}) {
    for (uint32_t exponent = 90; exponent <= 145; ++exponent) {
      const uint32_t shift = exponent >= 113 ? 13 : std::min<uint32_t>(126 - exponent, 24);
      const uint32_t half = 1u << (shift - 1);
      const uint32_t low_mask = (1u << shift) - 1;
      const uint32_t kept_count = shift >= 23 ? 1u : std::min<uint32_t>(1u << (23 - shift), 1024);
      for (uint32_t kept = 0; kept < kept_count; ++kept) {
        for (uint32_t low : {0u, 1u, half - 1, half, half + 1, low_mask}) {
          const uint32_t mantissa = ((kept << shift) | (low & low_mask)) & 0x7FFFFFu;
          const float f = from_bits(sign | (exponent << 23) | mantissa);
          ASSERT_EQ(float_to_half_bits(f), gcc_half(f)) << std::hex << std::bit_cast<uint32_t>(f);
        }
      }
    }
  }
}

TEST(HalfToFloat, HandDerivedValues) {
  EXPECT_EQ(half_bits_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_bits_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_bits_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_bits_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(half_bits_to_float(0x03FF), 0x1.ff8p-15f);
  EXPECT_EQ(half_bits_to_float(0x0400), 0x1p-14f);
  EXPECT_EQ(std::bit_cast<uint32_t>(half_bits_to_float(0x8000)), 0x80000000u);
  EXPECT_EQ(half_bits_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_bits_to_float(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_bits_to_float(0x7E00)));
  EXPECT_TRUE(std::isnan(half_bits_to_float(0x7C01)));  // signaling NaN comes back quiet NaN
}

TEST(HalfToFloat, ExhaustiveAgainstGccAndRoundTrip) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    const float f = half_bits_to_float(half);
    const float g = gcc_widen(half);
    const bool is_nan = (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0;
    if (is_nan) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      ASSERT_EQ(std::signbit(f), std::signbit(g)) << std::hex << h;
      // Payload kept; the quiet bit is set.
      ASSERT_EQ(std::bit_cast<uint32_t>(f), std::bit_cast<uint32_t>(g) | 0x400000u)
          << std::hex << h;
      ASSERT_EQ(float_to_half_bits(f), h | 0x0200u) << std::hex << h;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(f), std::bit_cast<uint32_t>(g)) << std::hex << h;
      ASSERT_EQ(float_to_half_bits(f), h) << std::hex << h;  // widening is exact
    }
  }
}

TEST(HalfArrays, LittleEndianPayloadAndBlockTails) {
  std::vector<float> x(600);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.37f - 100.0f;
  std::vector<std::byte> bytes(2 * x.size());
  floats_to_halves(x, bytes.data());
  std::vector<float> back(x.size());
  halves_to_floats(bytes.data(), back);
  for (size_t i = 0; i < x.size(); ++i) {
    const uint16_t h = gcc_half(x[i]);
    ASSERT_EQ(bytes[2 * i], static_cast<std::byte>(h & 0xFF)) << i;
    ASSERT_EQ(bytes[2 * i + 1], static_cast<std::byte>(h >> 8)) << i;
    ASSERT_EQ(back[i], gcc_widen(h)) << i;
  }
}

}  // namespace
}  // namespace compopt
