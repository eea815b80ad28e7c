// Philox4x32-10 against Random123's published known-answer vectors (tests/kat_vectors, the three
// "philox4x32 10" lines: counter, key, expected output), and the RandomKey draw helpers.
#include "core/compress/philox.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/compress/random_key.h"
#include "core/compress/uniform_fill.h"

namespace compopt {
namespace {

TEST(Philox4x32_10, KnownAnswerZeros) {
  const PhiloxCounter out = philox4x32_10({0u, 0u, 0u, 0u}, {0u, 0u});
  EXPECT_EQ(out, (PhiloxCounter{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST(Philox4x32_10, KnownAnswerAllOnes) {
  const PhiloxCounter out = philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                                          {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(out, (PhiloxCounter{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
}

TEST(Philox4x32_10, KnownAnswerPiDigits) {
  const PhiloxCounter out = philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                                          {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(out, (PhiloxCounter{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox4x32_10, UsableAtCompileTime) {
  constexpr PhiloxCounter out = philox4x32_10({0u, 0u, 0u, 0u}, {0u, 0u});
  static_assert(out[0] == 0x6627e8d5u);
}

TEST(UniformFromBits, RangeEnds) {
  EXPECT_EQ(uniform_from_bits(0u), 0.0f);
  EXPECT_EQ(uniform_from_bits(0xffffffffu), 1.0f - 1.0f / 16777216.0f);  // < 1
  EXPECT_EQ(uniform_from_bits(0x80000000u), 0.5f);
}

TEST(RandomKey, BlockUsesDocumentedCounterLayout) {
  const RandomKey key{.seed = 0x0123456789abcdefull,
                      .step = 0x0000000500000007ull,
                      .rank = 3,
                      .stream = 2,
                      .index_offset = 0};
  const uint64_t q = 0x0000000900000011ull;
  const PhiloxCounter expected = philox4x32_10(
      {0x00000011u, 0x00000009u ^ (2u << 16), 0x00000007u, 3u}, {0x89abcdefu, 0x01234567u ^ 5u});
  EXPECT_EQ(key.block(q), expected);
}

TEST(FillUniforms, MatchesPerElementDrawsForEveryAlignment) {
  const RandomKey key{.seed = 42, .step = 7, .rank = 1, .stream = 0, .index_offset = 0};
  for (uint64_t first : {0ull, 1ull, 2ull, 3ull, 5ull, (1ull << 32) - 2}) {
    for (size_t n : {0u, 1u, 3u, 4u, 5u, 17u}) {
      std::vector<float> u(n);
      fill_uniforms(key, first, u);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(u[i], key.uniform(first + i)) << "first=" << first << " i=" << i;
      }
    }
  }
}

TEST(FillUniforms, DrawsLookUniform) {
  // Mean of n uniforms has standard deviation 1/sqrt(12 n); allow 5 of them.
  const RandomKey key{.seed = 9, .step = 1, .rank = 0, .stream = 0, .index_offset = 0};
  constexpr size_t kN = 1 << 16;
  std::vector<float> u(kN);
  fill_uniforms(key, 0, u);
  double sum = 0;
  for (float v : u) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / kN, 0.5, 5.0 / std::sqrt(12.0 * kN));
}

}  // namespace
}  // namespace compopt
