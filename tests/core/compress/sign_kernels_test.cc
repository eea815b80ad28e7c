// The sign compressor's kernels on every path (portable / AVX2 x 1, 2, 3, 8 threads) against
// the scalar reference: payload bytes, scale bits and decoded bits, on awkward sizes, special
// values (zeros, huge, inf, NaN), and the canonical sum-of-squares order of sign.h checked on
// hand-derived totals that any other order gets wrong.
#include "core/compress/sign_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/compress/sign.h"
#include "tests/core/compress/kernel_configs.h"
#include "tests/core/compress/scalar_reference.h"

namespace compopt {
namespace {

using testing::awkward_sizes;
using testing::first_difference;
using testing::kernel_configs;
using testing::random_floats;
using testing::same_bits;
using testing::ScopedKernelConfig;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// Encodes and decodes x on every path and expects the reference's payload, scale and output.
void expect_matches_reference(const std::vector<float>& x, const char* what) {
  const SignCompressor c;
  std::vector<std::byte> expected_payload(c.payload_bytes(x.size()));
  const float expected_scale = reference::sign_encode(x, expected_payload);
  std::vector<float> expected_out(x.size());
  reference::sign_decode(expected_scale, expected_payload, expected_out);
  for (const auto& config : kernel_configs()) {
    ScopedKernelConfig scoped(config);
    std::vector<std::byte> payload(expected_payload.size(), std::byte{0xA5});
    const float scale = c.encode(x, payload, RandomKey{});
    ASSERT_TRUE(same_bits(scale, expected_scale))
        << what << " k=" << x.size() << " " << config.name() << ": " << scale << " vs "
        << expected_scale;
    ASSERT_EQ(payload, expected_payload) << what << " k=" << x.size() << " " << config.name();
    std::vector<float> out(x.size(), 123.0f);
    c.decode(scale, payload, out);
    ASSERT_EQ(first_difference(out, expected_out), -1)
        << what << " k=" << x.size() << " " << config.name();
  }
}

TEST(SignKernels, RandomInputsMatchScalarReferenceOnEveryPath) {
  for (const size_t k : awkward_sizes()) {
    expect_matches_reference(random_floats(k, static_cast<uint32_t>(k) + 1), "random");
  }
}

TEST(SignKernels, AllZeroGivesZeroScaleAllOnesAndPositiveZeros) {
  for (const size_t k : {9u, 65537u, (1u << 20) + 3}) {
    const std::vector<float> x(k, 0.0f);
    expect_matches_reference(x, "zeros");
    for (const auto& config : kernel_configs()) {
      ScopedKernelConfig scoped(config);
      const SignCompressor c;
      std::vector<std::byte> payload(c.payload_bytes(k));
      ASSERT_EQ(c.encode(x, payload, RandomKey{}), 0.0f);
      for (size_t q = 0; q + 1 < payload.size(); ++q) ASSERT_EQ(payload[q], std::byte{0xFF}) << q;
      ASSERT_EQ(payload.back(), static_cast<std::byte>(k % 8 == 0 ? 0xFFu : (1u << (k % 8)) - 1u));
      std::vector<float> out(k, -1.0f);
      c.decode(0.0f, payload, out);
      for (const float v : out) ASSERT_TRUE(same_bits(v, 0.0f));
    }
  }
}

TEST(SignKernels, HugeInfAndNanFollowTheHeaderContract) {
  for (const size_t k : {7u, 65536u, (1u << 18) + 5}) {
    std::vector<float> x = random_floats(k, 7);
    for (size_t i = 0; i < k; i += 3) x[i] = i % 2 == 0 ? 1e38f : -3.4e38f;  // squares fit a double
    expect_matches_reference(x, "huge");
    const SignCompressor c;
    std::vector<std::byte> payload(c.payload_bytes(k));
    EXPECT_TRUE(std::isfinite(c.encode(x, payload, RandomKey{}))) << k;

    std::vector<float> with_inf = x;
    with_inf[k / 2] = -kInf;
    expect_matches_reference(with_inf, "inf");
    EXPECT_EQ(c.encode(with_inf, payload, RandomKey{}), kInf) << k;

    std::vector<float> with_nan = with_inf;
    with_nan[k - 1] = kNan;
    with_nan[0] = -kNan;
    expect_matches_reference(with_nan, "nan");
    EXPECT_TRUE(std::isnan(c.encode(with_nan, payload, RandomKey{}))) << k;
    EXPECT_EQ(static_cast<unsigned>(payload[0]) & 1u, 0u) << "a NaN element's bit is 0";
    EXPECT_EQ((static_cast<unsigned>(payload.back()) >> ((k - 1) % 8)) & 1u, 0u);
  }
}

TEST(SignKernels, DecodeOfArbitraryPayloadsAndScales) {
  std::mt19937 rng(3);
  for (const size_t k : awkward_sizes()) {
    std::vector<std::byte> payload((k + 7) / 8);
    for (auto& b : payload) b = static_cast<std::byte>(rng() & 0xFFu);
    if (k % 8 != 0) payload.back() &= static_cast<std::byte>((1u << (k % 8)) - 1u);
    for (const float s : {0.75f, 0.0f, -0.0f, kInf, kNan, 3e-39f}) {
      std::vector<float> expected(k);
      reference::sign_decode(s, payload, expected);
      for (const auto& config : kernel_configs()) {
        ScopedKernelConfig scoped(config);
        std::vector<float> out(k, 5.0f);
        SignCompressor().decode(s, payload, out);
        ASSERT_EQ(first_difference(out, expected), -1)
            << "k=" << k << " s=" << s << " " << config.name();
      }
    }
  }
}

// The non-temporal store path (used from kStreamMinElements on) at every output alignment.
TEST(SignKernels, StreamingDecodeMatchesReferenceAtAnyAlignment) {
  std::mt19937 rng(5);
  std::vector<const SignKernels*> tables = {&portable_sign_kernels()};
  if (detected_simd_level() == SimdLevel::kAvx2 && avx2_sign_kernels() != nullptr) {
    tables.push_back(avx2_sign_kernels());
  }
  for (const size_t k : {0u, 5u, 8u, 77u, 4096u, 4099u}) {
    std::vector<std::byte> payload((k + 7) / 8);
    for (auto& b : payload) b = static_cast<std::byte>(rng() & 0xFFu);
    std::vector<float> expected(k);
    reference::sign_decode(-2.5f, payload, expected);
    for (const SignKernels* kernels : tables) {
      for (size_t shift = 0; shift < 8; ++shift) {
        std::vector<float> buffer(k + 8, 7.0f);
        kernels->decode(payload.data(), k, -2.5f, buffer.data() + shift, true);
        const std::vector<float> out(buffer.begin() + static_cast<long>(shift),
                                     buffer.begin() + static_cast<long>(shift + k));
        ASSERT_EQ(first_difference(out, expected), -1) << "k=" << k << " shift " << shift;
        for (size_t i = 0; i < shift; ++i) ASSERT_EQ(buffer[i], 7.0f) << "wrote before out";
        for (size_t i = shift + k; i < buffer.size(); ++i)
          ASSERT_EQ(buffer[i], 7.0f) << "wrote past out";
      }
    }
  }
}

// Chunk order: chunk 0 holds x = 2^27 at positions 0..7 (a_r = 2^54), chunk 1 holds 65536 ones
// (a_r = 8192). Per chunk: 2^57 and 2^16, total exactly 2^57 + 2^16. Accumulating across the
// chunk boundary instead would lose every +1 (half an ulp of 2^54 is 2) and give 2^57.
TEST(SignKernels, SumOfSquaresRestartsEveryChunkAndAddsChunksInOrder) {
  std::vector<float> x(2 * 65536, 0.0f);
  for (size_t i = 0; i < 8; ++i) x[i] = 134217728.0f;  // 2^27
  for (size_t i = 65536; i < x.size(); ++i) x[i] = 1.0f;
  const double expected = std::ldexp(1.0, 57) + std::ldexp(1.0, 16);
  EXPECT_EQ(reference::sign_sum_of_squares(x), expected);
  for (const auto& config : kernel_configs()) {
    ScopedKernelConfig scoped(config);
    EXPECT_EQ(sign_sum_of_squares(x), expected) << config.name();
  }
}

// Inside a chunk: a0 = 2^54 (x_0 = 2^27), a2 = a3 = a4 = ... = a7 = 1.5625 (x = 1.25), and
// x_8 = 1.25 adds to a0 (i % 8 = 0), where it is lost (2^54 + 1.5625 rounds to 2^54; ulp 4).
// ((a0 + a1) + (a2 + a3)) = 2^54 + 3.125 -> 2^54 + 4; ((a4 + a5) + (a6 + a7)) = 6.25;
// 2^54 + 4 + 6.25 -> 2^54 + 12. Adding a0..a7 left to right would lose every 1.5625: 2^54.
TEST(SignKernels, SumOfSquaresUsesEightAccumulatorsAndPairwiseTree) {
  std::vector<float> x(11, 0.0f);
  x[0] = 134217728.0f;
  for (size_t i = 2; i < 9; ++i) x[i] = 1.25f;
  const double expected = std::ldexp(1.0, 54) + 12.0;
  EXPECT_EQ(reference::sign_sum_of_squares(x), expected);
  for (const auto& config : kernel_configs()) {
    ScopedKernelConfig scoped(config);
    EXPECT_EQ(sign_sum_of_squares(x), expected) << config.name();
    std::vector<std::byte> payload(2);
    EXPECT_EQ(SignCompressor().encode(x, payload, RandomKey{}),
              static_cast<float>(std::sqrt(expected / 11.0)))
        << config.name();
  }
}

TEST(SignKernels, SumOfSquaresOfRandomVectorsMatchesReference) {
  for (const size_t k : awkward_sizes()) {
    const std::vector<float> x = random_floats(k, static_cast<uint32_t>(k) * 3 + 1);
    const double expected = reference::sign_sum_of_squares(x);
    for (const auto& config : kernel_configs()) {
      ScopedKernelConfig scoped(config);
      ASSERT_EQ(sign_sum_of_squares(x), expected) << "k=" << k << " " << config.name();
    }
  }
}

}  // namespace
}  // namespace compopt
