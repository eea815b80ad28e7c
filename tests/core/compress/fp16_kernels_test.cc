// fp16 encode / decode on every path (portable / AVX2-F16C x 1, 2, 3, 8 threads) against the
// scalar reference (half.h's integer conversions): every half bit pattern, dense sweeps of float
// bit patterns around each rounding boundary and special value, random vectors of awkward sizes,
// and the same bits with FTZ / DAZ set in MXCSR (the conversions must ignore the FP environment).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/compress/fp16.h"
#include "tests/core/compress/kernel_configs.h"
#include "tests/core/compress/scalar_reference.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace compopt {
namespace {

using testing::awkward_sizes;
using testing::first_difference;
using testing::kernel_configs;
using testing::random_floats;
using testing::ScopedKernelConfig;

// Every sign and exponent, with all 2^13 patterns of the bits rounding drops under a few
// patterns of the 10 kept mantissa bits (odd / even last kept bit, all ones for the carry).
std::vector<float> rounding_sweep() {
  std::vector<float> x;
  for (uint32_t high = 0; high < 512; ++high) {
    for (const uint32_t kept : {0x000u, 0x001u, 0x200u, 0x3FEu, 0x3FFu}) {
      for (uint32_t low = 0; low < (1u << 13); low += (high % 7 == 0 ? 1u : 37u)) {
        const uint32_t bits = (high << 23) | (kept << 13) | low;
        float v;
        std::memcpy(&v, &bits, sizeof v);
        x.push_back(v);
      }
    }
  }
  return x;
}

void expect_fp16_matches(const std::vector<float>& x, const char* what) {
  const Fp16Compressor c;
  std::vector<std::byte> expected(c.payload_bytes(x.size()));
  reference::fp16_encode(x, expected);
  std::vector<float> expected_out(x.size());
  reference::fp16_decode(expected, expected_out);
  for (const auto& config : kernel_configs()) {
    ScopedKernelConfig scoped(config);
    std::vector<std::byte> payload(expected.size(), std::byte{0x11});
    EXPECT_EQ(c.encode(x, payload, RandomKey{}), 1.0f);
    ASSERT_EQ(payload, expected) << what << " k=" << x.size() << " " << config.name();
    std::vector<float> out(x.size(), 2.0f);
    c.decode(1.0f, payload, out);
    // Exact bits, NaN payloads included: widening is exact.
    ASSERT_EQ(0, x.empty() ? 0 : std::memcmp(out.data(), expected_out.data(), 4 * x.size()))
        << what << " k=" << x.size() << " " << config.name();
  }
}

TEST(Fp16Kernels, EveryHalfDecodesLikeTheReference) {
  std::vector<std::byte> payload(2 * 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    payload[2 * h] = static_cast<std::byte>(h & 0xFFu);
    payload[2 * h + 1] = static_cast<std::byte>(h >> 8);
  }
  std::vector<float> expected(65536);
  reference::fp16_decode(payload, expected);
  for (const auto& config : kernel_configs()) {
    ScopedKernelConfig scoped(config);
    std::vector<float> out(65536);
    Fp16Compressor().decode(1.0f, payload, out);
    ASSERT_EQ(0, std::memcmp(out.data(), expected.data(), 4 * out.size())) << config.name();
  }
}

TEST(Fp16Kernels, RoundingSweepMatchesReference) { expect_fp16_matches(rounding_sweep(), "sweep"); }

TEST(Fp16Kernels, RandomVectorsMatchReference) {
  for (const size_t k : awkward_sizes()) {
    std::vector<float> x = random_floats(k, static_cast<uint32_t>(k) + 5);
    for (size_t i = 0; i < k; i += 11) x[i] *= 70000.0f;  // some overflow to inf
    expect_fp16_matches(x, "random");
  }
}

#if defined(__x86_64__)
TEST(Fp16Kernels, FlushToZeroAndDenormalsAreZeroDoNotChangeResults) {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);  // FTZ (bit 15) and DAZ (bit 6)
  expect_fp16_matches(rounding_sweep(), "sweep under FTZ/DAZ");
  _mm_setcsr(saved);
}
#endif

}  // namespace
}  // namespace compopt
