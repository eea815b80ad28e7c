// encode_with_feedback and average_encode_with_feedback (core/compress/feedback_encode.h) for
// every compressor against the separate sequence compensate / encode / decode / update on
// full-length temporaries (the code they replace): on every kernel path, at sizes that end
// inside a block, on a block or task edge and past the threading threshold, with non-finite
// inputs, over several steps so the error carries over. Then: after the first call they
// allocate nothing.
#include "core/compress/feedback_encode.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "core/compress/compressor.h"
#include "core/compress/error_feedback.h"
#include "tests/core/compress/kernel_configs.h"

namespace {
std::atomic<size_t> g_allocations{0};
}  // namespace

// Counts every allocation of this test program (the allocation-free test reads the count).
void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace compopt {
namespace {

using testing::first_difference;
using testing::kernel_configs;
using testing::random_floats;
using testing::same_bits;
using testing::ScopedKernelConfig;

constexpr int kSteps = 3;
const char* const kSpecs[] = {"sign",   "binary", "identity", "fp16",
                              "nbit:3", "nbit:8", "nbit:16",  "topk:0.05"};

std::vector<float> as_vector(std::span<const float> s) { return {s.begin(), s.end()}; }

// x with NaN, +-inf and huge values planted (so the error of some elements goes non-finite).
std::vector<float> with_specials(std::vector<float> x, size_t every) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 3e38f, -0.0f};
  for (size_t i = every / 2; i < x.size(); i += every) x[i] = specials[(i / every) % 5];
  return x;
}

// The sequence on full-length temporaries: y = pad(x) + e; encode; decode; e = y - decoded.
float reference_step(const Compressor& c, ErrorFeedback& ef, std::span<const float> x,
                     std::span<std::byte> payload, const RandomKey& key) {
  std::vector<float> y(ef.size(), 0.0f), decoded(ef.size());
  std::copy(x.begin(), x.end(), y.begin());
  ef.compensate(y, y);
  const float scale = c.encode(y, payload, key);
  c.decode(scale, payload, decoded);
  ef.update(y, decoded);
  return scale;
}

void expect_worker_matches(const Compressor& c, size_t k, size_t nx, size_t special_every) {
  ErrorFeedback expected_ef(k), ef(k);
  for (int t = 0; t < kSteps; ++t) {
    std::vector<float> x = random_floats(nx, static_cast<uint32_t>(k + 31 * t));
    if (special_every != 0 && t == 1) x = with_specials(x, special_every);
    const RandomKey key{.seed = 9, .step = static_cast<uint64_t>(t), .rank = 2, .index_offset = 40};
    std::vector<std::byte> expected(c.payload_bytes(k)), payload(c.payload_bytes(k));
    const float expected_scale = reference_step(c, expected_ef, x, expected, key);
    const float scale = encode_with_feedback(c, ef, x, payload, key);
    const std::string where = c.name() + " k=" + std::to_string(k) + " step " + std::to_string(t);
    ASSERT_TRUE(same_bits(scale, expected_scale)) << where;
    ASSERT_EQ(payload, expected) << where;
    ASSERT_EQ(first_difference(as_vector(ef.error()), as_vector(expected_ef.error())), -1) << where;
  }
}

TEST(FeedbackEncode, WorkerStepEqualsSequenceForEveryCompressorAndPath) {
  for (const auto& config : kernel_configs()) {
    const ScopedKernelConfig scoped(config);
    for (const char* spec : kSpecs) {
      const auto c = make_compressor(spec);
      for (const size_t k : {0u, 1u, 13u, 2047u, 2048u, 2049u, 65536u + 9u, (1u << 18) + 8u}) {
        SCOPED_TRACE(config.name());
        expect_worker_matches(*c, k, k, 0);
        expect_worker_matches(*c, k, k / 3, 0);  // zero-padded input
        if (k > 100) expect_worker_matches(*c, k, k, 97);
      }
    }
  }
}

// Equal payloads, or (for compressors that put floats on the wire: fp16, identity) payloads that
// differ only inside NaNs: which NaN a sum of two NaNs keeps depends on the operand order the
// compiler picked, in the reference as in the kernels, so NaN bits are not part of the contract.
bool same_payload(const Compressor& c, size_t k, float scale, std::span<const std::byte> got,
                  std::span<const std::byte> expected) {
  if (std::equal(got.begin(), got.end(), expected.begin(), expected.end())) return true;
  std::vector<float> a(k), b(k);
  c.decode(scale, got, a);
  c.decode(scale, expected, b);
  for (size_t j = 0; j < k; ++j) {
    if (!same_bits(a[j], b[j])) {
      ADD_FAILURE() << c.name() << ": payloads differ at element " << j << ": " << a[j] << " vs "
                    << b[j];
      return false;
    }
  }
  return c.name() == "fp16" || c.name() == "identity";
}

// The server step on full-length temporaries: z = (0 + sum decode_i) / n, then the sequence.
float reference_server(const Compressor& c, std::span<const float> scales,
                       std::span<const std::byte> payloads, ErrorFeedback& ef,
                       std::span<std::byte> payload, const RandomKey& key) {
  const size_t k = ef.size(), bytes = c.payload_bytes(k);
  std::vector<float> z(k, 0.0f), piece(k);
  for (size_t i = 0; i < scales.size(); ++i) {
    c.decode(scales[i], payloads.subspan(i * bytes, bytes), piece);
    for (size_t j = 0; j < k; ++j) z[j] += piece[j];
  }
  for (float& v : z) v /= static_cast<float>(scales.size());
  return reference_step(c, ef, z, payload, key);
}

void expect_server_matches(const Compressor& c, size_t k, size_t ranks) {
  const size_t bytes = c.payload_bytes(k);
  ErrorFeedback expected_ef(k), ef(k);
  for (int t = 0; t < kSteps; ++t) {
    std::vector<std::byte> payloads(ranks * bytes);
    std::vector<float> scales(ranks);
    for (size_t i = 0; i < ranks; ++i) {
      std::vector<float> x = random_floats(k, static_cast<uint32_t>(i + 5 * t));
      if (t == 1 && i == 0) x = with_specials(x, 89);
      scales[i] = c.encode(x, std::span(payloads).subspan(i * bytes, bytes), RandomKey{});
    }
    const RandomKey key{
        .seed = 3, .step = static_cast<uint64_t>(t), .stream = 1, .index_offset = 7};
    std::vector<std::byte> expected(bytes), payload(bytes);
    const float expected_scale = reference_server(c, scales, payloads, expected_ef, expected, key);
    const float scale = average_encode_with_feedback(c, scales, payloads, ef, payload, key);
    const std::string where = c.name() + " k=" + std::to_string(k) + " step " + std::to_string(t);
    ASSERT_TRUE(same_bits(scale, expected_scale)) << where;
    ASSERT_TRUE(same_payload(c, k, scale, payload, expected)) << where;
    ASSERT_EQ(first_difference(as_vector(ef.error()), as_vector(expected_ef.error())), -1) << where;
  }
}

TEST(FeedbackEncode, ServerStepEqualsSequenceForEveryCompressorAndPath) {
  for (const auto& config : kernel_configs()) {
    const ScopedKernelConfig scoped(config);
    for (const char* spec : kSpecs) {
      const auto c = make_compressor(spec);
      for (const size_t k : {1u, 2049u, (1u << 18) + 24u}) {
        SCOPED_TRACE(config.name());
        expect_server_matches(*c, k, 3);
      }
    }
  }
}

// After a first call has set up the pool (and topk's scratch), further calls allocate nothing
// but what a compressor's own encode needs (topk's selection sorts an index array per call).
TEST(FeedbackEncode, RepeatedCallsAllocateNothing) {
  const size_t k = (1u << 18) + 8;
  const std::vector<float> x = random_floats(k, 3);
  for (const char* spec : kSpecs) {
    const auto c = make_compressor(spec);
    ErrorFeedback ef(k);
    std::vector<std::byte> payload(c->payload_bytes(k));
    std::vector<std::byte> payloads(2 * payload.size());
    const std::vector<float> scales = {1.0f, 0.5f};
    encode_with_feedback(*c, ef, x, payload, RandomKey{});
    if (c->chunkable()) average_encode_with_feedback(*c, scales, payloads, ef, payload, {});
    const size_t before = g_allocations.load();
    encode_with_feedback(*c, ef, x, payload, RandomKey{.step = 1});
    if (c->chunkable()) average_encode_with_feedback(*c, scales, payloads, ef, payload, {});
    const size_t expected = std::string(spec).starts_with("topk") ? 1 : 0;
    EXPECT_EQ(g_allocations.load() - before, expected) << spec;
  }
}

}  // namespace
}  // namespace compopt
