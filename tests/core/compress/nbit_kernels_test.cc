// `nbit:B` encode (chunked over the pool, word-at-a-time packers) against the single-threaded
// BitWriter code it replaced (scalar_reference.h): payload bytes and scale bit-identical for
// every bit width, awkward length, index offset, SimdLevel and thread count, the decode
// (unpackers per width, on the pool) identical to the one-field BitReader loop, and the error
// buffer of encode_with_feedback identical to the reference sequence y = x + e, encode, decode,
// e = y - decoded.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "core/compress/error_feedback.h"
#include "core/compress/feedback_encode.h"
#include "core/compress/nbit.h"
#include "core/util/error.h"
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

// Inputs of one magnitude range (so every level occurs), plus the mixed-exponent floats.
std::vector<float> inputs(size_t k, uint32_t seed, bool mixed) {
  std::vector<float> x = random_floats(k, seed);
  if (!mixed) {
    for (size_t j = 0; j < k; ++j) x[j] = std::sin(0.37f * static_cast<float>(j + seed));
  }
  return x;
}

void expect_same_encode(unsigned bits, const std::vector<float>& x, const RandomKey& key) {
  const NbitCompressor c(bits);
  std::vector<std::byte> want(c.payload_bytes(x.size()), std::byte{0xA5});
  const float want_scale = reference::nbit_encode(bits, x, want, key);
  std::vector<float> want_out(x.size()), out(x.size());
  reference::nbit_decode(bits, want_scale, want, want_out);
  for (const auto& config : kernel_configs()) {
    const ScopedKernelConfig scoped(config);
    std::vector<std::byte> got(want.size(), std::byte{0x5A});
    const float scale = c.encode(x, got, key);
    ASSERT_TRUE(same_bits(scale, want_scale))
        << c.name() << " k=" << x.size() << " " << config.name();
    ASSERT_EQ(got, want) << c.name() << " k=" << x.size() << " " << config.name();
    c.decode(want_scale, want, out);
    ASSERT_EQ(first_difference(out, want_out), -1)
        << c.name() << " k=" << x.size() << " " << config.name();
  }
}

TEST(NbitKernels, EncodeAndDecodeMatchReferenceForEveryWidthAndSize) {
  const RandomKey key{.seed = 17, .step = 3, .rank = 2, .stream = 1, .index_offset = 0};
  for (unsigned bits = NbitCompressor::kMinBits; bits <= NbitCompressor::kMaxBits; ++bits) {
    for (const size_t k : awkward_sizes()) {
      expect_same_encode(bits, inputs(k, bits, false), key);
      if (k <= 65537) expect_same_encode(bits, inputs(k, bits + 100, true), key);
    }
  }
}

TEST(NbitKernels, EncodeMatchesReferenceAtUnalignedIndexOffsets) {
  for (const uint64_t offset : {1ull, 3ull, 1001ull, (1ull << 32) - 2}) {
    const RandomKey key{.seed = 5, .step = 9, .rank = 0, .stream = 2, .index_offset = offset};
    for (const unsigned bits : {2u, 3u, 8u, 13u, 16u}) {
      expect_same_encode(bits, inputs(300000, bits, false), key);
    }
  }
}

TEST(NbitKernels, NonFiniteAndZeroInputsMatchReference) {
  const RandomKey key{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const unsigned bits : {2u, 5u, 8u, 16u}) {
    for (const size_t at : {size_t{0}, size_t{70000}, size_t{300000}}) {
      std::vector<float> x = inputs(300001, bits, false);
      x[at] = -inf;
      expect_same_encode(bits, x, key);
      x[at + 1] = nan;
      expect_same_encode(bits, x, key);
    }
    expect_same_encode(bits, std::vector<float>(300001, -0.0f), key);
  }
}

TEST(NbitKernels, FeedbackErrorMatchesReferenceSequence) {
  const RandomKey key{.seed = 11, .step = 1, .rank = 3, .stream = 0, .index_offset = 0};
  for (const unsigned bits : {2u, 4u, 7u, 8u, 16u}) {
    const NbitCompressor c(bits);
    for (const size_t k : {size_t{9}, size_t{65537}, (size_t{1} << 18) + 5}) {
      const std::vector<float> x = inputs(k, bits, false), e0 = inputs(k, bits + 7, false);
      std::vector<float> y(k), want_e(k), decoded(k);
      for (size_t j = 0; j < k; ++j) y[j] = x[j] + 0.25f * e0[j];
      std::vector<std::byte> want(c.payload_bytes(k));
      const float want_scale = reference::nbit_encode(bits, y, want, key);
      reference::nbit_decode(bits, want_scale, want, decoded);
      for (size_t j = 0; j < k; ++j) want_e[j] = y[j] - decoded[j];
      for (const auto& config : kernel_configs()) {
        const ScopedKernelConfig scoped(config);
        ErrorFeedback ef(k);
        for (size_t j = 0; j < k; ++j) ef.mutable_error()[j] = 0.25f * e0[j];
        std::vector<std::byte> got(want.size());
        ASSERT_TRUE(same_bits(encode_with_feedback(c, ef, x, got, key), want_scale));
        ASSERT_EQ(got, want) << c.name() << " k=" << k << " " << config.name();
        const std::vector<float> e(ef.error().begin(), ef.error().end());
        ASSERT_EQ(first_difference(e, want_e), -1)
            << c.name() << " k=" << k << " " << config.name();
      }
    }
  }
}

TEST(NbitKernels, WrongPayloadSizeIsRejected) {
  const NbitCompressor c(8);
  const std::vector<float> x(16, 1.0f);
  std::vector<std::byte> payload(15);
  EXPECT_THROW(c.encode(x, payload, RandomKey{}), InvalidArgument);
  std::vector<float> out(16);
  EXPECT_THROW(c.decode(1.0f, payload, out), InvalidArgument);
}

}  // namespace
}  // namespace compopt
