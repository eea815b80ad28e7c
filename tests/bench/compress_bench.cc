// Compressor throughput at 2^16, 2^20 and 2^24 fp32 elements. Each benchmark's input is the fp32
// vector (4 bytes/element) and is compared with BM_memcpy of the same bytes.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/compress/compressor.h"
#include "core/compress/error_feedback.h"
#include "tests/bench/memcpy_baseline.h"
#include "tests/bench/ratio_reporter.h"

namespace compopt::bench {
namespace {

constexpr int64_t kMinElements = int64_t{1} << 16;
constexpr int64_t kMaxElements = int64_t{1} << 24;

std::vector<float> make_input(size_t k) {
  std::vector<float> x(k);
  for (size_t i = 0; i < k; ++i) x[i] = std::sin(0.001f * static_cast<float>(i % 100003)) * 0.9f;
  return x;
}

// Registers the memcpy baselines for every size below.
[[maybe_unused]] const bool kBaselines = [] {
  for (int64_t k = kMinElements; k <= kMaxElements; k *= 16) ensure_memcpy_baseline(4 * k);
  return true;
}();

void encode_benchmark(benchmark::State& state, const char* spec) {
  const auto k = static_cast<size_t>(state.range(0));
  const auto c = make_compressor(spec);
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  RandomKey key{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  for (auto _ : state) {
    benchmark::DoNotOptimize(c->encode(x, payload, key));
    benchmark::ClobberMemory();
    ++key.step;
  }
  set_input_bytes(state, 4 * state.range(0));
}

// Error feedback + sign as an optimizer runs it: y = x + e, encode, decode, e = y - decoded.
void BM_sign_encode_ef(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  const auto c = make_compressor("sign");
  const std::vector<float> x = make_input(k);
  std::vector<float> y(k), decoded(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  ErrorFeedback ef(k);
  for (auto _ : state) {
    ef.compensate(x, y);
    const float s = c->encode(y, payload, RandomKey{});
    c->decode(s, payload, decoded);
    ef.update(y, decoded);
    benchmark::ClobberMemory();
  }
  set_input_bytes(state, 4 * state.range(0));
}

void BM_sign_decode(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  const auto c = make_compressor("sign");
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  const float s = c->encode(x, payload, RandomKey{});
  std::vector<float> out(k);
  for (auto _ : state) {
    c->decode(s, payload, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  // Declared as the fp32 vector it reconstructs, so all ops at one size share one baseline.
  set_input_bytes(state, 4 * state.range(0));
}

void BM_sign_encode(benchmark::State& state) { encode_benchmark(state, "sign"); }
void BM_binary_encode(benchmark::State& state) { encode_benchmark(state, "binary"); }
void BM_fp16_encode(benchmark::State& state) { encode_benchmark(state, "fp16"); }
void BM_nbit8_encode(benchmark::State& state) { encode_benchmark(state, "nbit:8"); }

#define COMPOPT_COMPRESS_BENCH(fn)        \
  BENCHMARK(fn)                           \
      ->RangeMultiplier(16)               \
      ->Range(kMinElements, kMaxElements) \
      ->Unit(benchmark::kMicrosecond)

COMPOPT_COMPRESS_BENCH(BM_sign_encode_ef);
COMPOPT_COMPRESS_BENCH(BM_sign_encode);
COMPOPT_COMPRESS_BENCH(BM_sign_decode);
COMPOPT_COMPRESS_BENCH(BM_binary_encode);
COMPOPT_COMPRESS_BENCH(BM_fp16_encode);
COMPOPT_COMPRESS_BENCH(BM_nbit8_encode);

}  // namespace
}  // namespace compopt::bench
