#pragma once
// Scalar references of the compression kernels for the tests and the benchmark
// (tests/bench/compress_bench.cc): the single-threaded code the library ran before the AVX2 and
// multi-threaded kernels (blocks of 256 that the compiler vectorizes for SSE2 at best), kept
// apart from core/compress/ except for the element rules they share (bit_packing.h, half.h's
// conversions, RandomKey::block, ErrorFeedback). The sign scale follows sign.h's canonical order
// (the old code with the per-chunk restart of the sums; identical for k <= 65536).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "core/compress/bit_packing.h"
#include "core/compress/error_feedback.h"
#include "core/compress/half.h"
#include "core/compress/random_key.h"

namespace compopt::reference {

inline constexpr size_t kNormChunk = 65536;
inline constexpr size_t kBlock =
    256;  // the old kernels' block: a multiple of 8 dividing kNormChunk

// acc[i % 8] += double(x_i)^2 for i < n, in index order.
inline void accumulate_squares(const float* __restrict x, size_t n, double* __restrict acc) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t r = 0; r < 8; ++r) {
      const double v = x[i + r];
      acc[r] += v * v;
    }
  }
  for (size_t r = 0; i + r < n; ++r) {
    const double v = x[i + r];
    acc[r] += v * v;
  }
}

inline double pairwise(const double* acc) {
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// sign.h's canonical order: chunks of 65536, acc[i % 8], pairwise chunk sum, chunks in order.
inline double sign_sum_of_squares(std::span<const float> x) {
  double total = 0.0;
  for (size_t begin = 0; begin < x.size(); begin += kNormChunk) {
    double acc[8] = {};
    accumulate_squares(x.data() + begin, std::min(kNormChunk, x.size() - begin), acc);
    total += pairwise(acc);
  }
  return total;
}

inline float sign_encode(std::span<const float> x, std::span<std::byte> payload) {
  const size_t k = x.size();
  double total = 0.0, acc[8] = {};
  uint8_t flags[kBlock];
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const float* __restrict xb = x.data() + begin;
    const size_t n = std::min(kBlock, k - begin);
    accumulate_squares(xb, n, acc);
    for (size_t i = 0; i < n; ++i) flags[i] = xb[i] >= 0.0f ? 1 : 0;  // NaN -> 0
    pack_flags(flags, n, payload.data() + begin / 8);
    if ((begin + n) % kNormChunk == 0 || begin + n == k) {  // end of a norm chunk
      total += pairwise(acc);
      std::fill(acc, acc + 8, 0.0);
    }
  }
  if (k == 0) return 0.0f;
  return static_cast<float>(std::sqrt(total / static_cast<double>(k)));
}

inline void sign_decode(float scale, std::span<const std::byte> payload, std::span<float> out) {
  const size_t k = out.size();
  const uint32_t s_bits = std::bit_cast<uint32_t>(scale);
  uint8_t flags[kBlock];
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const size_t n = std::min(kBlock, k - begin);
    unpack_flags(payload.data() + begin / 8, n, flags);
    float* __restrict o = out.data() + begin;
    for (size_t i = 0; i < n; ++i) {
      o[i] = std::bit_cast<float>(s_bits ^ (static_cast<uint32_t>(flags[i] ^ 1u) << 31));
    }
  }
}

// The separate EF sequence: y = pad(x) + e; encode; decode; e = y - decoded.
inline float sign_encode_with_feedback(std::span<const float> x, ErrorFeedback& ef,
                                       std::span<std::byte> payload) {
  std::vector<float> y(ef.size(), 0.0f), decoded(ef.size());
  std::copy(x.begin(), x.end(), y.begin());
  ef.compensate(y, y);
  const float s = sign_encode(y, payload);
  sign_decode(s, payload, decoded);
  ef.update(y, decoded);
  return s;
}

// The server step as compressed_allreduce.cc ran it: z = 0; z += decode_i; z /= n; EF + sign.
inline float sign_server_encode_with_feedback(std::span<const float> scales,
                                              std::span<const std::byte> payloads,
                                              ErrorFeedback& ef, std::span<std::byte> payload) {
  const size_t k = ef.size(), bytes = (k + 7) / 8;
  std::vector<float> z(k, 0.0f), piece(k);
  for (size_t i = 0; i < scales.size(); ++i) {
    sign_decode(scales[i], payloads.subspan(i * bytes, bytes), piece);
    for (size_t j = 0; j < k; ++j) z[j] += piece[j];
  }
  for (float& v : z) v /= static_cast<float>(scales.size());
  return sign_encode_with_feedback(z, ef, payload);
}

// u[i] = uniform of global index first + i: one Philox call per 4 indices.
inline void fill_uniforms(const RandomKey& key, uint64_t first, std::span<float> u) {
  const size_t n = u.size();
  size_t i = 0;
  while (i < n && ((first + i) & 3u) != 0) {
    u[i] = key.uniform(first + i);
    ++i;
  }
  for (; i + 4 <= n; i += 4) {
    const PhiloxCounter r = key.block((first + i) >> 2);
    for (int j = 0; j < 4; ++j) u[i + j] = uniform_from_bits(r[j]);
  }
  for (; i < n; ++i) u[i] = key.uniform(first + i);
}

inline float binary_encode(std::span<const float> x, std::span<std::byte> payload,
                           const RandomKey& key) {
  const size_t k = x.size();
  float u[kBlock];
  uint8_t flags[kBlock];
  bool any_nan = false;
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const size_t n = std::min(kBlock, k - begin);
    reference::fill_uniforms(key, key.index_offset + begin, std::span<float>(u, n));
    const float* xb = x.data() + begin;
    for (size_t i = 0; i < n; ++i) {
      float p = (xb[i] + 1.0f) * 0.5f;
      p = p < 0.0f ? 0.0f : p;
      p = p > 1.0f ? 1.0f : p;
      flags[i] = u[i] < p ? 1 : 0;
      any_nan |= xb[i] != xb[i];
    }
    pack_flags(flags, n, payload.data() + begin / 8);
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : 1.0f;
}

inline void binary_decode(std::span<const std::byte> payload, std::span<float> out) {
  sign_decode(1.0f, payload, out);
}

inline void fp16_encode(std::span<const float> x, std::span<std::byte> payload) {
  uint16_t buf[kBlock];
  for (size_t begin = 0; begin < x.size(); begin += kBlock) {
    const size_t n = std::min(kBlock, x.size() - begin);
    for (size_t i = 0; i < n; ++i) buf[i] = float_to_half_bits(x[begin + i]);
    std::memcpy(payload.data() + 2 * begin, buf, 2 * n);
  }
}

inline void fp16_decode(std::span<const std::byte> payload, std::span<float> out) {
  uint16_t buf[kBlock];
  for (size_t begin = 0; begin < out.size(); begin += kBlock) {
    const size_t n = std::min(kBlock, out.size() - begin);
    std::memcpy(buf, payload.data() + 2 * begin, 2 * n);
    for (size_t i = 0; i < n; ++i) out[begin + i] = half_bits_to_float(buf[i]);
  }
}

// nbit:B encode as the library ran it before the chunked kernels: max |x| with the NaN check in
// one pass, then blocks of kBlock fields through the generic BitWriter.
inline float nbit_encode(unsigned bits, std::span<const float> x, std::span<std::byte> payload,
                         const RandomKey& key) {
  const size_t k = x.size();
  float max_abs = 0.0f;
  bool any_nan = false;
  for (const float v : x) {
    any_nan |= (v != v);
    max_abs = std::max(max_abs, std::fabs(v));
  }
  const float s = any_nan ? std::numeric_limits<float>::quiet_NaN() : max_abs;
  const bool quantize = s > 0.0f && std::isfinite(s);
  const float levels = static_cast<float>((uint32_t{1} << (bits - 1)) - 1);
  BitWriter writer(payload.data());
  float u[kBlock];
  uint32_t field[kBlock];
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const size_t n = std::min(kBlock, k - begin);
    const float* xb = x.data() + begin;
    for (size_t i = 0; i < n; ++i) field[i] = xb[i] < 0.0f ? 1u : 0u;
    if (quantize) {
      reference::fill_uniforms(key, key.index_offset + begin, std::span<float>(u, n));
      for (size_t i = 0; i < n; ++i) {
        const float t = std::fabs(xb[i]) / s * levels;
        const float lower = std::floor(t);
        const uint32_t level = static_cast<uint32_t>(lower) + (u[i] < t - lower ? 1u : 0u);
        field[i] |= level << 1;
      }
    }
    for (size_t i = 0; i < n; ++i) writer.put(field[i], bits);
  }
  writer.finish();
  return k == 0 ? 0.0f : s;
}

// nbit:B decode as the library ran it before: one BitReader field at a time.
inline void nbit_decode(unsigned bits, float scale, std::span<const std::byte> payload,
                        std::span<float> out) {
  const double step =
      static_cast<double>(scale) / static_cast<double>((uint32_t{1} << (bits - 1)) - 1);
  BitReader reader(payload.data());
  for (float& o : out) {
    const uint32_t field = reader.get(bits);
    const double magnitude = step * static_cast<double>(field >> 1);
    o = static_cast<float>((field & 1u) != 0 ? -magnitude : magnitude);
  }
}

}  // namespace compopt::reference
