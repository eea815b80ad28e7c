// AVX2 sign kernels (compiled with a function-level target, chosen at run time by
// sign_kernels()). Same arithmetic, in the same order, as sign_kernels_portable.cc: squares are
// exact in double, so the 8 accumulators (two vectors of 4) see the same sums.
#include "core/compress/sign_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#define COMPOPT_AVX2 __attribute__((target("avx2,fma")))

namespace compopt {
namespace {

// kFlip[b][r]: the sign bit when bit r of byte b is 0 (decode flips the scale's sign there).
struct FlipTable {
  alignas(32) uint32_t masks[256][8];
};
constexpr FlipTable make_flip_table() {
  FlipTable t{};
  for (uint32_t b = 0; b < 256; ++b) {
    for (uint32_t r = 0; r < 8; ++r) t.masks[b][r] = ((b >> r) & 1u) != 0 ? 0u : 0x80000000u;
  }
  return t;
}
constexpr FlipTable kFlip = make_flip_table();

COMPOPT_AVX2 inline __m256 flip_mask(uint8_t byte) {
  return _mm256_load_ps(reinterpret_cast<const float*>(kFlip.masks[byte]));
}

// The 8 running sums: lo holds acc[0..3], hi acc[4..7].
struct Acc {
  __m256d lo, hi;
};

COMPOPT_AVX2 inline void add_squares(Acc& acc, __m256 y) {
  const __m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(y));
  const __m256d b = _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1));
  acc.lo = _mm256_add_pd(acc.lo, _mm256_mul_pd(a, a));
  acc.hi = _mm256_add_pd(acc.hi, _mm256_mul_pd(b, b));
}

COMPOPT_AVX2 inline double chunk_sum(const Acc& acc) {
  alignas(32) double a[8];
  _mm256_store_pd(a, acc.lo);
  _mm256_store_pd(a + 4, acc.hi);
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// Bit r = (y_r >= 0); NaN compares false.
COMPOPT_AVX2 inline uint8_t sign_bits(__m256 y) {
  return static_cast<uint8_t>(
      _mm256_movemask_ps(_mm256_cmp_ps(y, _mm256_setzero_ps(), _CMP_GE_OQ)));
}

// Lanes [0, m) all ones, the rest 0 (m < 8).
COMPOPT_AVX2 inline __m256 lane_mask(size_t m) {
  const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(m)), index));
}

// Squares and bits of the last m < 8 elements, given as a full vector whose lanes >= m are
// ignored (zeroed: +0.0 leaves every sum unchanged).
COMPOPT_AVX2 inline uint8_t consume_tail(Acc& acc, __m256 y, size_t m) {
  y = _mm256_and_ps(y, lane_mask(m));
  add_squares(acc, y);
  return static_cast<uint8_t>(sign_bits(y) & ((1u << m) - 1u));
}

COMPOPT_AVX2 inline __m256 load_partial(const float* p, size_t m) {
  alignas(32) float tmp[8] = {};
  std::memcpy(tmp, p, m * sizeof(float));
  return _mm256_load_ps(tmp);
}

COMPOPT_AVX2 inline void store_partial(float* p, __m256 v, size_t m) {
  alignas(32) float tmp[8];
  _mm256_store_ps(tmp, v);
  std::memcpy(p, tmp, m * sizeof(float));
}

COMPOPT_AVX2 double squares_chunk(const float* x, size_t n) {
  Acc acc{_mm256_setzero_pd(), _mm256_setzero_pd()};
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) add_squares(acc, _mm256_loadu_ps(x + j));
  if (full < n) consume_tail(acc, load_partial(x + full, n - full), n - full);
  return chunk_sum(acc);
}

COMPOPT_AVX2 double plain_chunk(const float* x, size_t n, std::byte* bits) {
  Acc acc{_mm256_setzero_pd(), _mm256_setzero_pd()};
  auto* out = reinterpret_cast<uint8_t*>(bits);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 y = _mm256_loadu_ps(x + j);
    add_squares(acc, y);
    out[j / 8] = sign_bits(y);
  }
  if (full < n) out[full / 8] = consume_tail(acc, load_partial(x + full, n - full), n - full);
  return chunk_sum(acc);
}

COMPOPT_AVX2 double feedback_chunk(const float* x, size_t nx, float* e, size_t n, std::byte* bits) {
  Acc acc{_mm256_setzero_pd(), _mm256_setzero_pd()};
  auto* out = reinterpret_cast<uint8_t*>(bits);
  const size_t full = n / 8 * 8, x_full = nx / 8 * 8;
  size_t j = 0;
  for (; j < x_full; j += 8) {
    const __m256 y = _mm256_add_ps(_mm256_loadu_ps(x + j), _mm256_loadu_ps(e + j));
    _mm256_storeu_ps(e + j, y);
    add_squares(acc, y);
    out[j / 8] = sign_bits(y);
  }
  for (; j < full; j += 8) {  // past x: y = 0.0f + e (turns -0.0 into +0.0, as compensate does)
    const __m256 xv = j < nx ? load_partial(x + j, nx - j) : _mm256_setzero_ps();
    const __m256 y = _mm256_add_ps(xv, _mm256_loadu_ps(e + j));
    _mm256_storeu_ps(e + j, y);
    add_squares(acc, y);
    out[j / 8] = sign_bits(y);
  }
  if (full < n) {
    const size_t m = n - full;
    const __m256 xv = full < nx ? load_partial(x + full, nx - full) : _mm256_setzero_ps();
    const __m256 y = _mm256_add_ps(xv, load_partial(e + full, m));
    store_partial(e + full, y, m);
    out[full / 8] = consume_tail(acc, y, m);
  }
  return chunk_sum(acc);
}

// (0.0f + sum over ranks of +-s_i) / divisor for the 8 elements of payload byte `byte`.
COMPOPT_AVX2 inline __m256 server_average(const SignServerSource& source, size_t byte) {
  __m256 z = _mm256_setzero_ps();
  const auto* p = reinterpret_cast<const uint8_t*>(source.payloads) + byte;
  for (size_t r = 0; r < source.ranks; ++r, p += source.stride) {
    z = _mm256_add_ps(z, _mm256_xor_ps(_mm256_broadcast_ss(source.scales + r), flip_mask(*p)));
  }
  return _mm256_div_ps(z, _mm256_set1_ps(source.divisor));
}

// Four groups of 8 at once (four independent chains of additions over the ranks).
COMPOPT_AVX2 inline void server_average4(const SignServerSource& source, size_t byte, __m256* z) {
  for (int g = 0; g < 4; ++g) z[g] = _mm256_setzero_ps();
  const auto* p = reinterpret_cast<const uint8_t*>(source.payloads) + byte;
  for (size_t r = 0; r < source.ranks; ++r, p += source.stride) {
    const __m256 s = _mm256_broadcast_ss(source.scales + r);
    for (int g = 0; g < 4; ++g) z[g] = _mm256_add_ps(z[g], _mm256_xor_ps(s, flip_mask(p[g])));
  }
  const __m256 divisor = _mm256_set1_ps(source.divisor);
  for (int g = 0; g < 4; ++g) z[g] = _mm256_div_ps(z[g], divisor);
}

COMPOPT_AVX2 double server_chunk(const SignServerSource& source, size_t first, float* e, size_t n,
                                 std::byte* bits) {
  Acc acc{_mm256_setzero_pd(), _mm256_setzero_pd()};
  auto* out = reinterpret_cast<uint8_t*>(bits);
  const size_t full = n / 8 * 8;
  size_t j = 0;
  for (; j + 32 <= full; j += 32) {
    __m256 z[4];
    server_average4(source, (first + j) / 8, z);
    for (int g = 0; g < 4; ++g) {
      const __m256 y = _mm256_add_ps(z[g], _mm256_loadu_ps(e + j + 8 * static_cast<size_t>(g)));
      _mm256_storeu_ps(e + j + 8 * static_cast<size_t>(g), y);
      add_squares(acc, y);
      out[j / 8 + g] = sign_bits(y);
    }
  }
  for (; j < full; j += 8) {
    const __m256 y = _mm256_add_ps(server_average(source, (first + j) / 8), _mm256_loadu_ps(e + j));
    _mm256_storeu_ps(e + j, y);
    add_squares(acc, y);
    out[j / 8] = sign_bits(y);
  }
  if (full < n) {
    const size_t m = n - full;
    const __m256 y =
        _mm256_add_ps(server_average(source, (first + full) / 8), load_partial(e + full, m));
    store_partial(e + full, y, m);
    out[full / 8] = consume_tail(acc, y, m);
  }
  return chunk_sum(acc);
}

// Full chunks interleaved: C chunks of kNormChunk elements advance together, one group of 8
// each per step, so C x 2 independent chains of additions hide the latency of each. Y gives the
// y vector of element offset o (and stores it where the pass must).
struct PlainY {
  const float* x;
  COMPOPT_AVX2 __m256 operator()(size_t o) const { return _mm256_loadu_ps(x + o); }
};

struct FeedbackY {
  const float* x;
  float* e;
  COMPOPT_AVX2 __m256 operator()(size_t o) const {
    const __m256 y = _mm256_add_ps(_mm256_loadu_ps(x + o), _mm256_loadu_ps(e + o));
    _mm256_storeu_ps(e + o, y);
    return y;
  }
};

template <int C, bool kBits, class Y>
COMPOPT_AVX2 inline void interleaved_chunks(const Y& y_of, std::byte* bits, double* sums) {
  Acc acc[C];
  for (int c = 0; c < C; ++c) acc[c] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  auto* out = reinterpret_cast<uint8_t*>(bits);
  for (size_t j = 0; j < kNormChunk; j += 8) {
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const size_t o = static_cast<size_t>(c) * kNormChunk + j;
      const __m256 y = y_of(o);
      add_squares(acc[c], y);
      if constexpr (kBits) out[o / 8] = sign_bits(y);
    }
  }
  for (int c = 0; c < C; ++c) sums[c] = chunk_sum(acc[c]);
}

// Runs the full chunks of a range 4, 2 or 1 at a time and returns how many elements it covered
// (all full chunks among the first `full_limit` elements).
template <bool kBits, class MakeY>
COMPOPT_AVX2 inline size_t full_chunks(size_t full_limit, const MakeY& make_y, std::byte* bits,
                                       double*& sums) {
  const size_t full = full_limit / kNormChunk;
  const auto at = [](std::byte* b, size_t chunk) { return kBits ? b + chunk * kNormChunk / 8 : b; };
  size_t c = 0;
  for (; c + 4 <= full; c += 4, sums += 4) {
    interleaved_chunks<4, kBits>(make_y(c * kNormChunk), at(bits, c), sums);
  }
  for (; c + 2 <= full; c += 2, sums += 2) {
    interleaved_chunks<2, kBits>(make_y(c * kNormChunk), at(bits, c), sums);
  }
  for (; c < full; ++c, ++sums) {
    interleaved_chunks<1, kBits>(make_y(c * kNormChunk), at(bits, c), sums);
  }
  return full * kNormChunk;
}

struct MakePlainY {
  const float* x;
  COMPOPT_AVX2 PlainY operator()(size_t b) const { return {x + b}; }
};

struct MakeFeedbackY {
  const float* x;
  float* e;
  COMPOPT_AVX2 FeedbackY operator()(size_t b) const { return {x + b, e + b}; }
};

COMPOPT_AVX2 void sum_squares(const float* x, size_t n, double* sums) {
  const size_t done = full_chunks<false>(n, MakePlainY{x}, nullptr, sums);
  if (done < n) *sums = squares_chunk(x + done, n - done);
}

COMPOPT_AVX2 void plain_pass(const float* x, size_t n, std::byte* bits, double* sums) {
  const size_t done = full_chunks<true>(n, MakePlainY{x}, bits, sums);
  if (done < n) *sums = plain_chunk(x + done, n - done, bits + done / 8);
}

COMPOPT_AVX2 void feedback_pass(const float* x, size_t nx, float* e, size_t n, std::byte* bits,
                                double* sums) {
  // Interleave only chunks that lie inside x; the zero-padded rest goes chunk by chunk.
  const size_t done = full_chunks<true>(std::min(nx, n), MakeFeedbackY{x, e}, bits, sums);
  for (size_t b = done; b < n; b += kNormChunk) {
    const size_t m = std::min(kNormChunk, n - b), in_x = nx > b ? std::min(nx - b, m) : 0;
    *sums++ = feedback_chunk(in_x > 0 ? x + b : x, in_x, e + b, m, bits + b / 8);
  }
}

COMPOPT_AVX2 void server_pass(const SignServerSource& source, size_t first, float* e, size_t n,
                              std::byte* bits, double* sums) {
  for (size_t b = 0; b < n; b += kNormChunk) {
    *sums++ = server_chunk(source, first + b, e + b, std::min(kNormChunk, n - b), bits + b / 8);
  }
}

COMPOPT_AVX2 void feedback_finish(float* e, size_t n, float s) {
  const __m256 sv = _mm256_set1_ps(s), sign = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 y = _mm256_loadu_ps(e + j);
    const __m256 flip = _mm256_andnot_ps(_mm256_cmp_ps(y, zero, _CMP_GE_OQ), sign);
    _mm256_storeu_ps(e + j, _mm256_sub_ps(y, _mm256_xor_ps(sv, flip)));
  }
  const uint32_t s_bits = std::bit_cast<uint32_t>(s);
  for (size_t j = full; j < n; ++j) {
    e[j] = e[j] - std::bit_cast<float>(s_bits ^ (e[j] >= 0.0f ? 0u : 0x80000000u));
  }
}

// Stores 8 floats at p: plain, or non-temporal when p is 32- or 16-byte aligned.
template <bool kStream>
COMPOPT_AVX2 inline void store8(float* p, __m256 v) {
  if constexpr (kStream) {
    if ((reinterpret_cast<uintptr_t>(p) & 31u) == 0) {
      _mm256_stream_ps(p, v);
    } else {
      _mm_stream_ps(p, _mm256_castps256_ps128(v));
      _mm_stream_ps(p + 4, _mm256_extractf128_ps(v, 1));
    }
  } else {
    _mm256_storeu_ps(p, v);
  }
}

template <bool kStream>
COMPOPT_AVX2 inline void decode_bytes(const uint8_t* in, size_t bytes, __m256 sv, float* out) {
  size_t q = 0;
  for (; q + 4 <= bytes; q += 4) {
    store8<kStream>(out + 8 * q, _mm256_xor_ps(sv, flip_mask(in[q])));
    store8<kStream>(out + 8 * q + 8, _mm256_xor_ps(sv, flip_mask(in[q + 1])));
    store8<kStream>(out + 8 * q + 16, _mm256_xor_ps(sv, flip_mask(in[q + 2])));
    store8<kStream>(out + 8 * q + 24, _mm256_xor_ps(sv, flip_mask(in[q + 3])));
  }
  for (; q < bytes; ++q) store8<kStream>(out + 8 * q, _mm256_xor_ps(sv, flip_mask(in[q])));
}

COMPOPT_AVX2 void decode(const std::byte* bits, size_t n, float s, float* out, bool stream) {
  const __m256 sv = _mm256_set1_ps(s);
  const auto* in = reinterpret_cast<const uint8_t*>(bits);
  const size_t bytes = n / 8;
  if (stream && (reinterpret_cast<uintptr_t>(out) & 15u) == 0) {
    decode_bytes<true>(in, bytes, sv, out);
    _mm_sfence();  // order the non-temporal stores before whatever reads out next
  } else {
    decode_bytes<false>(in, bytes, sv, out);
  }
  if (8 * bytes < n)
    store_partial(out + 8 * bytes, _mm256_xor_ps(sv, flip_mask(in[bytes])), n - 8 * bytes);
}

constexpr SignKernels kAvx2 = {sum_squares, plain_pass,      feedback_pass,
                               server_pass, feedback_finish, decode};

}  // namespace

const SignKernels* avx2_sign_kernels() { return &kAvx2; }

}  // namespace compopt

#else  // !__x86_64__

namespace compopt {
const SignKernels* avx2_sign_kernels() { return nullptr; }
}  // namespace compopt

#endif
