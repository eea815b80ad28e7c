#include "core/compress/nbit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/compress/bit_packing.h"
#include "core/compress/payload_check.h"
#include "core/compress/uniform_fill.h"
#include "core/util/error.h"

namespace compopt {

NbitCompressor::NbitCompressor(unsigned bits) : bits_(bits), levels_(0) {
  if (bits < kMinBits || bits > kMaxBits) {
    throw InvalidArgument("nbit: bit width " + std::to_string(bits) + " is outside 2..16");
  }
  levels_ = (uint32_t{1} << (bits - 1)) - 1;
}

float NbitCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                             const RandomKey& key) const {
  const size_t k = x.size();
  check_payload_size(name() + " encode", k, payload.size(), payload_bytes(k));
  float max_abs = 0.0f;
  bool any_nan = false;
  for (const float v : x) {
    any_nan |= (v != v);
    max_abs = std::max(max_abs, std::fabs(v));
  }
  const float s = any_nan ? std::numeric_limits<float>::quiet_NaN() : max_abs;
  const bool quantize = s > 0.0f && std::isfinite(s);
  const float levels = static_cast<float>(levels_);

  BitWriter writer(payload.data());
  constexpr size_t kBlock = 256;
  float u[kBlock];
  uint32_t field[kBlock];
  for (size_t begin = 0; begin < k; begin += kBlock) {
    const size_t n = std::min(kBlock, k - begin);
    const float* xb = x.data() + begin;
    for (size_t i = 0; i < n; ++i) field[i] = xb[i] < 0.0f ? 1u : 0u;
    if (quantize) {
      fill_uniforms(key, key.index_offset + begin, std::span<float>(u, n));
      for (size_t i = 0; i < n; ++i) {
        const float t = std::fabs(xb[i]) / s * levels;  // in [0, L]: |x| <= s, division rounds
        const float lower = std::floor(t);
        const uint32_t level = static_cast<uint32_t>(lower) + (u[i] < t - lower ? 1u : 0u);
        field[i] |= level << 1;
      }
    }
    for (size_t i = 0; i < n; ++i) writer.put(field[i], bits_);
  }
  writer.finish();
  return k == 0 ? 0.0f : s;
}

void NbitCompressor::decode(float scale, std::span<const std::byte> payload,
                            std::span<float> out) const {
  check_payload_size(name() + " decode", out.size(), payload.size(), payload_bytes(out.size()));
  const double step = static_cast<double>(scale) / static_cast<double>(levels_);
  BitReader reader(payload.data());
  for (float& o : out) {
    const uint32_t field = reader.get(bits_);
    const double magnitude = step * static_cast<double>(field >> 1);
    o = static_cast<float>((field & 1u) != 0 ? -magnitude : magnitude);
  }
}

}  // namespace compopt
