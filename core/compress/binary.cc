#include "core/compress/binary.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "core/compress/bit_packing.h"
#include "core/compress/payload_check.h"
#include "core/compress/uniform_fill.h"

namespace compopt {

namespace {

// Elements per inner block (a multiple of 8: blocks start on payload bytes; fixed trip counts
// let the compiler vectorize at -O2).
constexpr size_t kBlock = 256;

// flags[i] = (u[i] < clamp((x[i] + 1)/2, 0, 1)), 0 for NaN x; returns whether some x[i] is NaN.
inline bool coin_flags(const float* __restrict x, const float* __restrict u, size_t n,
                       uint8_t* __restrict flags) {
  unsigned nan = 0;
  for (size_t i = 0; i < n; ++i) {
    float p = (x[i] + 1.0f) * 0.5f;
    p = p < 0.0f ? 0.0f : p;
    p = p > 1.0f ? 1.0f : p;
    flags[i] = u[i] < p ? 1 : 0;
    nan |= x[i] != x[i] ? 1u : 0u;
  }
  return nan != 0;
}

}  // namespace

float BinaryCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                               const RandomKey& key) const {
  const size_t k = x.size();
  check_payload_size("binary encode", k, payload.size(), payload_bytes(k));
  float u[kBlock];
  uint8_t flags[kBlock];
  bool any_nan = false;
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const size_t n = std::min(kBlock, k - begin);
    fill_uniforms(key, key.index_offset + begin, std::span<float>(u, n));
    const float* xb = x.data() + begin;
    any_nan |= n == kBlock ? coin_flags(xb, u, kBlock, flags) : coin_flags(xb, u, n, flags);
    pack_flags(flags, n, payload.data() + begin / 8);
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : 1.0f;
}

void BinaryCompressor::decode(float /*scale*/, std::span<const std::byte> payload,
                              std::span<float> out) const {
  const size_t k = out.size();
  check_payload_size("binary decode", k, payload.size(), payload_bytes(k));
  constexpr uint32_t kOne = 0x3F800000u;  // bits of 1.0f; -1.0f also has the sign bit
  uint8_t flags[kBlock];
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const size_t n = std::min(kBlock, k - begin);
    unpack_flags(payload.data() + begin / 8, n, flags);
    float* __restrict o = out.data() + begin;
    for (size_t i = 0; i < n; ++i) {
      o[i] = std::bit_cast<float>(kOne | (static_cast<uint32_t>(flags[i] ^ 1u) << 31));
    }
  }
}

}  // namespace compopt
