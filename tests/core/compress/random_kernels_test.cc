// Philox words in bulk, the `binary` kernels and the uniforms `nbit` draws, on every path
// (portable / AVX2 x 1, 2, 3, 8 threads), against RandomKey::block and the scalar reference:
// any start index (not a multiple of 4, crossing 2^32 blocks), awkward sizes, NaN and inf.
#include "core/compress/random_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/compress/binary.h"
#include "core/compress/nbit.h"
#include "core/compress/simd_level.h"
#include "core/compress/uniform_fill.h"
#include "tests/core/compress/kernel_configs.h"
#include "tests/core/compress/scalar_reference.h"

namespace compopt {
namespace {

using testing::awkward_sizes;
using testing::first_difference;
using testing::kernel_configs;
using testing::same_bits;
using testing::ScopedKernelConfig;

// Keys with bits set in every field, including the high halves that feed the counter and key.
const RandomKey kKeys[] = {
    {.seed = 0, .step = 0, .rank = 0, .stream = 0, .index_offset = 0},
    {.seed = 0x0123456789ABCDEFull,
     .step = 0xFEDCBA9876543210ull,
     .rank = 7,
     .stream = 1,
     .index_offset = 3},
    {.seed = 42, .step = 1000, .rank = 255, .stream = 0xFFFF, .index_offset = (1ull << 34) - 5},
};

std::vector<const RandomKernels*> kernel_tables() {
  std::vector<const RandomKernels*> tables = {&portable_random_kernels()};
  if (detected_simd_level() == SimdLevel::kAvx2 && avx2_random_kernels() != nullptr) {
    tables.push_back(avx2_random_kernels());
  }
  return tables;
}

TEST(RandomKernels, PhiloxWordsMatchRandomKeyBlocks) {
  for (const RandomKernels* kernels : kernel_tables()) {
    for (const RandomKey& key : kKeys) {
      for (const uint64_t first : {0ull, 1ull, 2ull, 3ull, 5ull, (1ull << 34) - 7, ~0ull - 600}) {
        for (const size_t n : {0u, 1u, 3u, 4u, 15u, 16u, 17u, 31u, 32u, 33u, 100u, 515u}) {
          std::vector<uint32_t> words(n + 1, 0xDEADBEEFu);
          kernels->philox_words(key, first, n, words.data());
          for (size_t i = 0; i < n; ++i) {
            const uint64_t index = first + i;
            ASSERT_EQ(words[i], key.block(index >> 2)[index & 3])
                << "first=" << first << " n=" << n << " i=" << i;
          }
          ASSERT_EQ(words[n], 0xDEADBEEFu) << "wrote past n=" << n;
        }
      }
    }
  }
}

TEST(RandomKernels, FillUniformsMatchesScalarReference) {
  for (const auto& config : kernel_configs()) {
    ScopedKernelConfig scoped(config);
    for (const RandomKey& key : kKeys) {
      for (const size_t n : {0u, 1u, 7u, 513u, 2000u}) {
        std::vector<float> expected(n), u(n);
        reference::fill_uniforms(key, key.index_offset, expected);
        fill_uniforms(key, key.index_offset, u);
        ASSERT_EQ(first_difference(u, expected), -1) << n << " " << config.name();
      }
    }
  }
}

// Values spread over [-1.5, 1.5] (so some clamp), with exact 0 / +-1 and, optionally, NaN / inf.
std::vector<float> coin_inputs(size_t k, uint32_t seed, bool non_finite) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.5f, 1.5f);
  std::vector<float> x(k);
  for (size_t i = 0; i < k; ++i) {
    const unsigned c = rng() % 64;
    x[i] = c == 0 ? 0.0f : c == 1 ? 1.0f : c == 2 ? -1.0f : uniform(rng);
    if (non_finite && c == 3) x[i] = std::numeric_limits<float>::quiet_NaN();
    if (non_finite && c == 4) x[i] = -std::numeric_limits<float>::infinity();
  }
  return x;
}

TEST(BinaryKernels, EncodeAndDecodeMatchScalarReferenceOnEveryPath) {
  const BinaryCompressor c;
  for (const size_t k : awkward_sizes()) {
    for (const bool non_finite : {false, true}) {
      const std::vector<float> x = coin_inputs(k, static_cast<uint32_t>(k), non_finite);
      for (const RandomKey& key : kKeys) {
        std::vector<std::byte> expected(c.payload_bytes(k));
        const float expected_ret = reference::binary_encode(x, expected, key);
        std::vector<float> expected_out(k);
        reference::binary_decode(expected, expected_out);
        for (const auto& config : kernel_configs()) {
          ScopedKernelConfig scoped(config);
          std::vector<std::byte> payload(expected.size(), std::byte{0xC3});
          const float ret = c.encode(x, payload, key);
          ASSERT_TRUE(same_bits(ret, expected_ret)) << "k=" << k << " " << config.name();
          ASSERT_EQ(std::isnan(ret),
                    std::any_of(x.begin(), x.end(), [](float v) { return std::isnan(v); }))
              << "k=" << k;
          ASSERT_EQ(payload, expected)
              << "k=" << k << " offset " << key.index_offset << " " << config.name();
          std::vector<float> out(k, 9.0f);
          c.decode(1.0f, payload, out);
          ASSERT_EQ(first_difference(out, expected_out), -1) << "k=" << k << " " << config.name();
        }
      }
    }
  }
}

TEST(BinaryKernels, NbitDrawsAreTheSameOnEveryPath) {
  const NbitCompressor c(5);
  const RandomKey key = kKeys[1];
  for (const size_t k : {9u, 1000u, 70001u}) {
    const std::vector<float> x = coin_inputs(k, 11, false);
    std::vector<std::byte> expected(c.payload_bytes(k));
    float expected_scale;
    {
      ScopedKernelConfig scoped({SimdLevel::kPortable, 1});
      expected_scale = c.encode(x, expected, key);
    }
    for (const auto& config : kernel_configs()) {
      ScopedKernelConfig scoped(config);
      std::vector<std::byte> payload(expected.size());
      ASSERT_TRUE(same_bits(c.encode(x, payload, key), expected_scale));
      ASSERT_EQ(payload, expected) << "k=" << k << " " << config.name();
    }
  }
}

}  // namespace
}  // namespace compopt
