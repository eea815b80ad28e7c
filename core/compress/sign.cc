#include "core/compress/sign.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/compress/bit_packing.h"
#include "core/compress/payload_check.h"

namespace compopt {
namespace {

// Elements per inner block: fixed trip counts let the compiler vectorize at -O2; a multiple of 8
// so every block starts on a payload byte.
constexpr size_t kBlock = 256;

// Adds x[i]^2 (in double) to acc[i % 8] for i < n; the fixed order makes the sum deterministic.
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

}  // namespace

float SignCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                             const RandomKey& /*key*/) const {
  const size_t k = x.size();
  check_payload_size("sign encode", k, payload.size(), payload_bytes(k));
  double acc[8] = {};
  uint8_t flags[kBlock];
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const float* __restrict xb = x.data() + begin;
    const size_t n = std::min(kBlock, k - begin);
    accumulate_squares(xb, n, acc);
    if (n == kBlock) {
      for (size_t i = 0; i < kBlock; ++i) flags[i] = xb[i] >= 0.0f ? 1 : 0;  // NaN -> 0
    } else {
      for (size_t i = 0; i < n; ++i) flags[i] = xb[i] >= 0.0f ? 1 : 0;
    }
    pack_flags(flags, n, payload.data() + begin / 8);
  }
  if (k == 0) return 0.0f;
  const double sum =
      ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  return static_cast<float>(std::sqrt(sum / static_cast<double>(k)));
}

void SignCompressor::decode(float scale, std::span<const std::byte> payload,
                            std::span<float> out) const {
  const size_t k = out.size();
  check_payload_size("sign decode", k, payload.size(), payload_bytes(k));
  // s * (2b - 1) is s with its sign bit flipped when b == 0 (exact, also for 0, inf and NaN).
  const uint32_t s_bits = std::bit_cast<uint32_t>(scale);
  uint8_t flags[kBlock];
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const size_t n = std::min(kBlock, k - begin);
    unpack_flags(payload.data() + begin / 8, n, flags);
    float* __restrict o = out.data() + begin;
    if (n == kBlock) {
      for (size_t i = 0; i < kBlock; ++i) {
        o[i] = std::bit_cast<float>(s_bits ^ (static_cast<uint32_t>(flags[i] ^ 1u) << 31));
      }
    } else {
      for (size_t i = 0; i < n; ++i) {
        o[i] = std::bit_cast<float>(s_bits ^ (static_cast<uint32_t>(flags[i] ^ 1u) << 31));
      }
    }
  }
}

}  // namespace compopt
