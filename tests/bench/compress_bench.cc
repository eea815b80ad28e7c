// Compressor throughput at 2^16, 2^20, 2^24 and 2^26 fp32 elements, alone and with error feedback.
// Each benchmark's input is the fp32 vector (4 bytes/element) and is compared with BM_memcpy of the
// same bytes; every op BM_x has a twin BM_x_scalar running the scalar reference
// (tests/core/compress/ scalar_reference.h, the code before the AVX2 / multi-threaded kernels), and
// the ratio table prints the speedup of BM_x over it. Threads and ISA path are printed in the
// context header (COMPOPT_THREADS caps the threads).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/compress/compressor.h"
#include "core/compress/error_feedback.h"
#include "core/compress/feedback_encode.h"
#include "core/compress/parallel_for.h"
#include "core/compress/simd_level.h"
#include "tests/bench/memcpy_baseline.h"
#include "tests/bench/ratio_reporter.h"
#include "tests/core/compress/scalar_reference.h"

namespace compopt::bench {
namespace {

constexpr int64_t kSizes[] = {int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 24,
                              int64_t{1} << 26};
constexpr size_t kServerRanks = 8;

std::vector<float> make_input(size_t k) {
  std::vector<float> x(k);
  for (size_t i = 0; i < k; ++i) x[i] = std::sin(0.001f * static_cast<float>(i % 100003)) * 0.9f;
  return x;
}

// Registers the memcpy baselines for every size and records the kernel configuration.
[[maybe_unused]] const bool kBaselines = [] {
  for (const int64_t k : kSizes) ensure_memcpy_baseline(4 * k);
  benchmark::AddCustomContext("compopt_threads", std::to_string(thread_count()));
  benchmark::AddCustomContext("compopt_simd", simd_level_name(simd_level()));
  return true;
}();

size_t elements(const benchmark::State& state) { return static_cast<size_t>(state.range(0)); }

template <class Op>
void run(benchmark::State& state, Op op) {
  for (auto _ : state) {
    op();
    benchmark::ClobberMemory();
  }
  set_input_bytes(state, 4 * state.range(0));
}

// Error feedback + sign as the compressed allreduce's worker runs it: y = x + e, encode, decode,
// e = y - decoded; fused (two passes over e) vs the separate scalar sequence.
void BM_sign_encode_ef(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("sign");
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  ErrorFeedback ef(k);
  run(state,
      [&] { benchmark::DoNotOptimize(encode_with_feedback(*c, ef, x, payload, RandomKey{})); });
}

void BM_sign_encode_ef_scalar(benchmark::State& state) {
  const size_t k = elements(state);
  const std::vector<float> x = make_input(k);
  std::vector<float> y(k), decoded(k);
  std::vector<std::byte> payload((k + 7) / 8);
  ErrorFeedback ef(k);
  run(state, [&] {
    ef.compensate(x, y);
    const float s = reference::sign_encode(y, payload);
    reference::sign_decode(s, payload, decoded);
    ef.update(y, decoded);
  });
}

void BM_sign_encode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("sign");
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  run(state, [&] { benchmark::DoNotOptimize(c->encode(x, payload, RandomKey{})); });
}

void BM_sign_encode_scalar(benchmark::State& state) {
  const std::vector<float> x = make_input(elements(state));
  std::vector<std::byte> payload((x.size() + 7) / 8);
  run(state, [&] { benchmark::DoNotOptimize(reference::sign_encode(x, payload)); });
}

// Decode benchmarks declare the fp32 vector they reconstruct, so all ops at one size share one
// baseline.
void BM_sign_decode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("sign");
  std::vector<std::byte> payload(c->payload_bytes(k));
  const float s = c->encode(make_input(k), payload, RandomKey{});
  std::vector<float> out(k);
  run(state, [&] { c->decode(s, payload, out); });
}

void BM_sign_decode_scalar(benchmark::State& state) {
  const size_t k = elements(state);
  std::vector<std::byte> payload((k + 7) / 8);
  const float s = reference::sign_encode(make_input(k), payload);
  std::vector<float> out(k);
  run(state, [&] { reference::sign_decode(s, payload, out); });
}

// Server step of the compressed allreduce for one chunk of k elements from 8 ranks: decode the 8
// payloads, average, add the server error, encode, update the error.
struct ServerInputs {
  std::vector<std::byte> payloads;
  std::vector<float> scales;
  explicit ServerInputs(size_t k) : payloads(kServerRanks * ((k + 7) / 8)), scales(kServerRanks) {
    const std::vector<float> x = make_input(k);
    std::vector<float> shifted(k);
    for (size_t i = 0; i < kServerRanks; ++i) {
      for (size_t j = 0; j < k; ++j) shifted[j] = x[(j + 977 * i) % k];
      scales[i] = reference::sign_encode(
          shifted, std::span(payloads).subspan(i * ((k + 7) / 8), (k + 7) / 8));
    }
  }
};

void BM_sign_server(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("sign");
  const ServerInputs in(k);
  std::vector<std::byte> payload((k + 7) / 8);
  ErrorFeedback ef(k);
  run(state, [&] {
    benchmark::DoNotOptimize(
        average_encode_with_feedback(*c, in.scales, in.payloads, ef, payload, RandomKey{}));
  });
}

void BM_sign_server_scalar(benchmark::State& state) {
  const size_t k = elements(state), bytes = (k + 7) / 8;
  const ServerInputs in(k);
  std::vector<std::byte> payload(bytes);
  std::vector<float> z(k), piece(k);
  ErrorFeedback ef(k);
  run(state, [&] {
    std::fill(z.begin(), z.end(), 0.0f);
    for (size_t i = 0; i < kServerRanks; ++i) {
      reference::sign_decode(in.scales[i], std::span(in.payloads).subspan(i * bytes, bytes), piece);
      for (size_t j = 0; j < k; ++j) z[j] += piece[j];
    }
    for (float& v : z) v /= static_cast<float>(kServerRanks);
    ef.compensate(z, z);
    const float s = reference::sign_encode(z, payload);
    reference::sign_decode(s, payload, piece);
    ef.update(z, piece);
  });
}

void BM_binary_encode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("binary");
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  RandomKey key{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  run(state, [&] {
    benchmark::DoNotOptimize(c->encode(x, payload, key));
    ++key.step;
  });
}

void BM_binary_encode_scalar(benchmark::State& state) {
  const std::vector<float> x = make_input(elements(state));
  std::vector<std::byte> payload((x.size() + 7) / 8);
  RandomKey key{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  run(state, [&] {
    benchmark::DoNotOptimize(reference::binary_encode(x, payload, key));
    ++key.step;
  });
}

void BM_binary_decode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("binary");
  std::vector<std::byte> payload(c->payload_bytes(k));
  c->encode(make_input(k), payload, RandomKey{});
  std::vector<float> out(k);
  run(state, [&] { c->decode(1.0f, payload, out); });
}

void BM_binary_decode_scalar(benchmark::State& state) {
  const size_t k = elements(state);
  std::vector<std::byte> payload((k + 7) / 8);
  reference::binary_encode(make_input(k), payload, RandomKey{});
  std::vector<float> out(k);
  run(state, [&] { reference::binary_decode(payload, out); });
}

void BM_fp16_encode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("fp16");
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  run(state, [&] { benchmark::DoNotOptimize(c->encode(x, payload, RandomKey{})); });
}

void BM_fp16_encode_scalar(benchmark::State& state) {
  const std::vector<float> x = make_input(elements(state));
  std::vector<std::byte> payload(2 * x.size());
  run(state, [&] { reference::fp16_encode(x, payload); });
}

void BM_fp16_decode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("fp16");
  std::vector<std::byte> payload(c->payload_bytes(k));
  c->encode(make_input(k), payload, RandomKey{});
  std::vector<float> out(k);
  run(state, [&] { c->decode(1.0f, payload, out); });
}

void BM_fp16_decode_scalar(benchmark::State& state) {
  const size_t k = elements(state);
  std::vector<std::byte> payload(2 * k);
  reference::fp16_encode(make_input(k), payload);
  std::vector<float> out(k);
  run(state, [&] { reference::fp16_decode(payload, out); });
}

void BM_nbit8_encode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("nbit:8");
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  RandomKey key{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  run(state, [&] {
    benchmark::DoNotOptimize(c->encode(x, payload, key));
    ++key.step;
  });
}

// The single-threaded BitWriter encode nbit ran before the chunked kernels.
void BM_nbit8_encode_scalar(benchmark::State& state) {
  const std::vector<float> x = make_input(elements(state));
  std::vector<std::byte> payload(x.size());
  RandomKey key{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  run(state, [&] {
    benchmark::DoNotOptimize(reference::nbit_encode(8, x, payload, key));
    ++key.step;
  });
}

// topk:0.01 (selection of the 1% largest magnitudes, then (index, value) pairs) and its decode;
// no scalar twin.
void BM_topk_encode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("topk");
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  run(state, [&] { benchmark::DoNotOptimize(c->encode(x, payload, RandomKey{})); });
}

void BM_topk_decode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("topk");
  std::vector<std::byte> payload(c->payload_bytes(k));
  c->encode(make_input(k), payload, RandomKey{});
  std::vector<float> out(k);
  run(state, [&] { c->decode(1.0f, payload, out); });
}

void BM_identity_encode(benchmark::State& state) {
  const size_t k = elements(state);
  const auto c = make_compressor("identity");
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  run(state, [&] { benchmark::DoNotOptimize(c->encode(x, payload, RandomKey{})); });
}

// Error feedback + <compressor> as the compressed allreduce's worker runs it (y = x + e, encode,
// decode, e = y - decoded) through encode_with_feedback; the _scalar twin is the sequence on
// full-length temporaries allocated per call that encode_with_feedback ran before (sign's twin
// is BM_sign_encode_ef_scalar above, with the scalar kernels as well).
void ef_encode(benchmark::State& state, const char* spec) {
  const size_t k = elements(state);
  const auto c = make_compressor(spec);
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  ErrorFeedback ef(k);
  RandomKey key{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  run(state, [&] {
    benchmark::DoNotOptimize(encode_with_feedback(*c, ef, x, payload, key));
    ++key.step;
  });
}

void ef_encode_scalar(benchmark::State& state, const char* spec) {
  const size_t k = elements(state);
  const auto c = make_compressor(spec);
  const std::vector<float> x = make_input(k);
  std::vector<std::byte> payload(c->payload_bytes(k));
  ErrorFeedback ef(k);
  RandomKey key{.seed = 1, .step = 0, .rank = 0, .stream = 0, .index_offset = 0};
  run(state, [&] {
    std::vector<float> y(k, 0.0f), decoded(k);
    std::copy(x.begin(), x.end(), y.begin());
    ef.compensate(y, y);
    const float scale = c->encode(y, payload, key);
    c->decode(scale, payload, decoded);
    ef.update(y, decoded);
    ++key.step;
  });
}

void BM_binary_encode_ef(benchmark::State& state) { ef_encode(state, "binary"); }
void BM_binary_encode_ef_scalar(benchmark::State& state) { ef_encode_scalar(state, "binary"); }
void BM_fp16_encode_ef(benchmark::State& state) { ef_encode(state, "fp16"); }
void BM_fp16_encode_ef_scalar(benchmark::State& state) { ef_encode_scalar(state, "fp16"); }
void BM_identity_encode_ef(benchmark::State& state) { ef_encode(state, "identity"); }
void BM_identity_encode_ef_scalar(benchmark::State& state) { ef_encode_scalar(state, "identity"); }
void BM_nbit8_encode_ef(benchmark::State& state) { ef_encode(state, "nbit:8"); }
void BM_nbit8_encode_ef_scalar(benchmark::State& state) { ef_encode_scalar(state, "nbit:8"); }
void BM_topk_encode_ef(benchmark::State& state) { ef_encode(state, "topk"); }
void BM_topk_encode_ef_scalar(benchmark::State& state) { ef_encode_scalar(state, "topk"); }

#define COMPOPT_COMPRESS_BENCH(fn)                                                     \
  BENCHMARK(fn)->Arg(kSizes[0])->Arg(kSizes[1])->Arg(kSizes[2])->Arg(kSizes[3])->Unit( \
      benchmark::kMicrosecond)

COMPOPT_COMPRESS_BENCH(BM_sign_encode_ef);
COMPOPT_COMPRESS_BENCH(BM_sign_encode_ef_scalar);
COMPOPT_COMPRESS_BENCH(BM_sign_encode);
COMPOPT_COMPRESS_BENCH(BM_sign_encode_scalar);
COMPOPT_COMPRESS_BENCH(BM_sign_decode);
COMPOPT_COMPRESS_BENCH(BM_sign_decode_scalar);
COMPOPT_COMPRESS_BENCH(BM_sign_server);
COMPOPT_COMPRESS_BENCH(BM_sign_server_scalar);
COMPOPT_COMPRESS_BENCH(BM_binary_encode);
COMPOPT_COMPRESS_BENCH(BM_binary_encode_scalar);
COMPOPT_COMPRESS_BENCH(BM_binary_decode);
COMPOPT_COMPRESS_BENCH(BM_binary_decode_scalar);
COMPOPT_COMPRESS_BENCH(BM_fp16_encode);
COMPOPT_COMPRESS_BENCH(BM_fp16_encode_scalar);
COMPOPT_COMPRESS_BENCH(BM_fp16_decode);
COMPOPT_COMPRESS_BENCH(BM_fp16_decode_scalar);
COMPOPT_COMPRESS_BENCH(BM_nbit8_encode);
COMPOPT_COMPRESS_BENCH(BM_nbit8_encode_scalar);
COMPOPT_COMPRESS_BENCH(BM_topk_encode);
COMPOPT_COMPRESS_BENCH(BM_topk_decode);
COMPOPT_COMPRESS_BENCH(BM_identity_encode);
COMPOPT_COMPRESS_BENCH(BM_binary_encode_ef);
COMPOPT_COMPRESS_BENCH(BM_binary_encode_ef_scalar);
COMPOPT_COMPRESS_BENCH(BM_fp16_encode_ef);
COMPOPT_COMPRESS_BENCH(BM_fp16_encode_ef_scalar);
COMPOPT_COMPRESS_BENCH(BM_identity_encode_ef);
COMPOPT_COMPRESS_BENCH(BM_identity_encode_ef_scalar);
COMPOPT_COMPRESS_BENCH(BM_nbit8_encode_ef);
COMPOPT_COMPRESS_BENCH(BM_nbit8_encode_ef_scalar);
COMPOPT_COMPRESS_BENCH(BM_topk_encode_ef);
COMPOPT_COMPRESS_BENCH(BM_topk_encode_ef_scalar);

}  // namespace
}  // namespace compopt::bench
