#pragma once
// Kernels behind sign.h and sign_feedback.h, one table per SimdLevel with bit-identical results
// (internal to core/compress). canonical_total cuts a vector into ranges of up to kChunksPerTask
// norm chunks, runs a pass per range (on the thread pool for large vectors) and adds the chunk
// sums in chunk order, as sign.h prescribes.

#include <cmath>
#include <cstddef>
#include <vector>

#include "core/compress/parallel_for.h"
#include "core/compress/sign.h"  // kNormChunk

namespace compopt {

// The n decoded sign payloads a server averages: payload i starts at payloads + i * stride and
// decodes with scales[i]; divisor is float(ranks).
struct SignServerSource {
  const std::byte* payloads;
  size_t stride;
  const float* scales;
  size_t ranks;
  float divisor;
};

// Each pass handles the n elements of a range that starts at a norm chunk boundary and spans
// ceil(n / kNormChunk) chunks; it writes their packed bits to bits[0, ceil(n/8)) and one sum per
// chunk to sums[]. Ranges of several chunks let the AVX2 kernels interleave chunks: each chunk's
// 8 accumulators form dependent chains of additions, and interleaving hides their latency.
struct SignKernels {
  // Sums of squares of x[0, n) only.
  void (*sum_squares)(const float* x, size_t n, double* sums);
  // y_j = x_j.
  void (*plain_pass)(const float* x, size_t n, std::byte* bits, double* sums);
  // y_j = (j < nx ? x_j : 0.0f) + e_j, written back to e_j; requires nx <= n.
  void (*feedback_pass)(const float* x, size_t nx, float* e, size_t n, std::byte* bits,
                        double* sums);
  // y_j = (0.0f + sum over i in order of decode_i(first + j)) / divisor + e_j, written back to
  // e_j; `first` (a multiple of 8) is the element index of e[0] in the decoded payloads.
  void (*server_pass)(const SignServerSource& source, size_t first, float* e, size_t n,
                      std::byte* bits, double* sums);
  // e_j = e_j - (e_j >= 0 ? s : -s): y - decode(encode(y)) with e holding y.
  void (*feedback_finish)(float* e, size_t n, float s);
  // out_j = bit j ? s : -s (s with its sign bit flipped). `stream`: write with non-temporal
  // stores where the ISA path has them (for outputs far larger than the caches).
  void (*decode)(const std::byte* bits, size_t n, float s, float* out, bool stream);
};

const SignKernels& portable_sign_kernels();
// nullptr when the build has no AVX2 variant (non-x86-64).
const SignKernels* avx2_sign_kernels();
// The table for simd_level().
const SignKernels& sign_kernels();

// Decoded outputs of at least this many elements (64 MiB of fp32, twice the last-level cache of
// the machines measured) are written with non-temporal stores: they cannot stay in cache anyway,
// and streaming skips reading every destination line before writing it.
inline constexpr size_t kStreamMinElements = size_t{1} << 24;

// Chunks per pass call (and per thread task).
inline constexpr size_t kChunksPerTask = 4;

// Chunk order of sign.h: total = ((0.0 + sum of chunk 0) + sum of chunk 1) + ...; pass(begin,
// end, sums) fills the sums of the chunks of [begin, end) (at most kChunksPerTask). Ranges run on
// the pool from kParallelMinElements elements on; the result is the same either way.
template <class Pass>
double canonical_total(size_t k, const Pass& pass) {
  constexpr size_t kStackChunks = 1024;  // vectors up to 2^26 elements allocate nothing
  const size_t chunks = (k + kNormChunk - 1) / kNormChunk;
  double small[kStackChunks];
  std::vector<double> large(chunks > kStackChunks ? chunks : 0);
  double* sums = chunks > kStackChunks ? large.data() : small;
  parallel_for_ranges(k, kChunksPerTask * kNormChunk, [&](size_t task, size_t begin, size_t end) {
    pass(begin, end, sums + task * kChunksPerTask);
  });
  double total = 0.0;
  for (size_t c = 0; c < chunks; ++c) total += sums[c];
  return total;
}

// s = float(sqrt(total / k)), and 0 for k = 0.
inline float sign_scale_from_total(double total, size_t k) {
  return k == 0 ? 0.0f : static_cast<float>(std::sqrt(total / static_cast<double>(k)));
}

}  // namespace compopt
