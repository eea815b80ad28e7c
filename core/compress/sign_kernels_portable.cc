// Portable sign kernels: plain C++ in blocks with fixed trip counts that the compiler vectorizes
// for the baseline ISA (SSE2 on x86-64). Also the run-time choice of the kernel table.
#include <algorithm>
#include <bit>
#include <cstdint>

#include "core/compress/bit_packing.h"
#include "core/compress/sign_kernels.h"
#include "core/compress/simd_level.h"

namespace compopt {
namespace {

constexpr size_t kBlock = 256;  // a multiple of 8: every block starts on a payload byte
constexpr uint32_t kSignBit = 0x80000000u;

// acc[i % 8] += double(y_i)^2 in index order (y starts on a multiple of 8 of its chunk).
inline void accumulate_squares(const float* __restrict y, size_t n, double* __restrict acc) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t r = 0; r < 8; ++r) {
      const double v = y[i + r];
      acc[r] += v * v;
    }
  }
  for (size_t r = 0; i + r < n; ++r) {
    const double v = y[i + r];
    acc[r] += v * v;
  }
}

inline double chunk_sum(const double* acc) {
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// Squares into acc and bits (y >= 0, so NaN gives 0) of y[0, n), n <= kBlock.
inline void consume(const float* __restrict y, size_t n, double* acc, std::byte* bits) {
  accumulate_squares(y, n, acc);
  uint8_t flags[kBlock];
  for (size_t i = 0; i < n; ++i) flags[i] = y[i] >= 0.0f ? 1 : 0;
  pack_flags(flags, n, bits);
}

// s with its sign bit flipped where the flag is 0.
inline float signed_scale(uint32_t s_bits, uint8_t flag) {
  return std::bit_cast<float>(s_bits ^ (static_cast<uint32_t>(flag ^ 1u) << 31));
}

double chunk_squares(const float* x, size_t n) {
  double acc[8] = {};
  accumulate_squares(x, n, acc);
  return chunk_sum(acc);
}

double plain_chunk(const float* x, size_t n, std::byte* bits) {
  double acc[8] = {};
  for (size_t begin = 0; begin < n; begin += kBlock) {
    consume(x + begin, std::min(kBlock, n - begin), acc, bits + begin / 8);
  }
  return chunk_sum(acc);
}

double feedback_chunk(const float* x, size_t nx, float* e, size_t n, std::byte* bits) {
  double acc[8] = {};
  float y[kBlock];
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t m = std::min(kBlock, n - begin);
    float* __restrict eb = e + begin;
    if (begin + m <= nx) {
      const float* __restrict xb = x + begin;
      for (size_t i = 0; i < m; ++i) y[i] = xb[i] + eb[i];
    } else {
      for (size_t i = 0; i < m; ++i) y[i] = (begin + i < nx ? x[begin + i] : 0.0f) + eb[i];
    }
    for (size_t i = 0; i < m; ++i) eb[i] = y[i];
    consume(y, m, acc, bits + begin / 8);
  }
  return chunk_sum(acc);
}

double server_chunk(const SignServerSource& source, size_t first, float* e, size_t n,
                    std::byte* bits) {
  double acc[8] = {};
  float y[kBlock];
  uint8_t flags[kBlock];
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t m = std::min(kBlock, n - begin);
    for (size_t i = 0; i < m; ++i) y[i] = 0.0f;
    for (size_t r = 0; r < source.ranks; ++r) {
      unpack_flags(source.payloads + r * source.stride + (first + begin) / 8, m, flags);
      const uint32_t s_bits = std::bit_cast<uint32_t>(source.scales[r]);
      for (size_t i = 0; i < m; ++i) y[i] += signed_scale(s_bits, flags[i]);
    }
    float* __restrict eb = e + begin;
    for (size_t i = 0; i < m; ++i) {
      y[i] = y[i] / source.divisor + eb[i];
      eb[i] = y[i];
    }
    consume(y, m, acc, bits + begin / 8);
  }
  return chunk_sum(acc);
}

// The range passes: one chunk at a time.
void sum_squares(const float* x, size_t n, double* sums) {
  for (size_t b = 0; b < n; b += kNormChunk)
    *sums++ = chunk_squares(x + b, std::min(kNormChunk, n - b));
}

void plain_pass(const float* x, size_t n, std::byte* bits, double* sums) {
  for (size_t b = 0; b < n; b += kNormChunk) {
    *sums++ = plain_chunk(x + b, std::min(kNormChunk, n - b), bits + b / 8);
  }
}

void feedback_pass(const float* x, size_t nx, float* e, size_t n, std::byte* bits, double* sums) {
  for (size_t b = 0; b < n; b += kNormChunk) {
    const size_t m = std::min(kNormChunk, n - b), in_x = nx > b ? std::min(nx - b, m) : 0;
    *sums++ = feedback_chunk(in_x > 0 ? x + b : x, in_x, e + b, m, bits + b / 8);
  }
}

void server_pass(const SignServerSource& source, size_t first, float* e, size_t n, std::byte* bits,
                 double* sums) {
  for (size_t b = 0; b < n; b += kNormChunk) {
    *sums++ = server_chunk(source, first + b, e + b, std::min(kNormChunk, n - b), bits + b / 8);
  }
}

void feedback_finish(float* __restrict e, size_t n, float s) {
  const uint32_t s_bits = std::bit_cast<uint32_t>(s);
  for (size_t i = 0; i < n; ++i) {
    const float decoded = std::bit_cast<float>(s_bits ^ (e[i] >= 0.0f ? 0u : kSignBit));
    e[i] = e[i] - decoded;
  }
}

void decode(const std::byte* bits, size_t n, float s, float* out, bool /*stream*/) {
  const uint32_t s_bits = std::bit_cast<uint32_t>(s);
  uint8_t flags[kBlock];
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t m = std::min(kBlock, n - begin);
    unpack_flags(bits + begin / 8, m, flags);
    float* __restrict o = out + begin;
    for (size_t i = 0; i < m; ++i) o[i] = signed_scale(s_bits, flags[i]);
  }
}

constexpr SignKernels kPortable = {sum_squares, plain_pass,      feedback_pass,
                                   server_pass, feedback_finish, decode};

}  // namespace

const SignKernels& portable_sign_kernels() { return kPortable; }

const SignKernels& sign_kernels() {
  if (simd_level() == SimdLevel::kAvx2) {
    if (const SignKernels* avx2 = avx2_sign_kernels()) return *avx2;
  }
  return kPortable;
}

}  // namespace compopt
