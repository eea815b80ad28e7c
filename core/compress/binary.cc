#include "core/compress/binary.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "core/compress/bit_packing.h"
#include "core/compress/payload_check.h"
#include "core/compress/uniform_fill.h"

namespace compopt {

float BinaryCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                               const RandomKey& key) const {
  const size_t k = x.size();
  check_payload_size("binary encode", k, payload.size(), payload_bytes(k));
  constexpr size_t kBlock = 256;  // multiple of 8: blocks start on byte boundaries
  float u[kBlock];
  bool any_nan = false;
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const size_t n = std::min(kBlock, k - begin);
    fill_uniforms(key, key.index_offset + begin, std::span<float>(u, n));
    const float* xb = x.data() + begin;
    for (size_t i = 0; i < n; ++i) any_nan |= (xb[i] != xb[i]);
    pack_bits(n, payload.data() + begin / 8, [&](size_t i) {
      float p = (xb[i] + 1.0f) * 0.5f;
      p = p < 0.0f ? 0.0f : p;
      p = p > 1.0f ? 1.0f : p;
      return u[i] < p;  // false for NaN
    });
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : 1.0f;
}

void BinaryCompressor::decode(float /*scale*/, std::span<const std::byte> payload,
                              std::span<float> out) const {
  check_payload_size("binary decode", out.size(), payload.size(), payload_bytes(out.size()));
  constexpr uint32_t kOne = 0x3F800000u;  // bits of 1.0f; -1.0f sets the sign bit
  float* o = out.data();
  unpack_bits(out.size(), payload.data(), [&](size_t j, unsigned bit) {
    o[j] = std::bit_cast<float>(kOne | (static_cast<uint32_t>(bit ^ 1u) << 31));
  });
}

}  // namespace compopt
