#include "core/compress/sign.h"

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/compress/bit_packing.h"
#include "core/compress/payload_check.h"

namespace compopt {

float SignCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                             const RandomKey& /*key*/) const {
  const size_t k = x.size();
  check_payload_size("sign encode", k, payload.size(), payload_bytes(k));
  // One pass: bits of 8 elements per byte, and 8 independent double partial sums of squares
  // (fixed order, vectorizable without reassociation flags).
  double acc[8] = {};
  const float* in = x.data();
  const size_t full = k / 8;
  for (size_t q = 0; q < full; ++q) {
    unsigned v = 0;
    for (unsigned r = 0; r < 8; ++r) {
      const float xv = in[8 * q + r];
      acc[r] += static_cast<double>(xv) * static_cast<double>(xv);
      v |= static_cast<unsigned>(xv >= 0.0f) << r;
    }
    payload[q] = static_cast<std::byte>(v);
  }
  if (const size_t rest = k - 8 * full; rest != 0) {
    unsigned v = 0;
    for (unsigned r = 0; r < rest; ++r) {
      const float xv = in[8 * full + r];
      acc[r] += static_cast<double>(xv) * static_cast<double>(xv);
      v |= static_cast<unsigned>(xv >= 0.0f) << r;
    }
    payload[full] = static_cast<std::byte>(v);
  }
  if (k == 0) return 0.0f;
  const double sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  return static_cast<float>(std::sqrt(sum / static_cast<double>(k)));
}

void SignCompressor::decode(float scale, std::span<const std::byte> payload,
                            std::span<float> out) const {
  check_payload_size("sign decode", out.size(), payload.size(), payload_bytes(out.size()));
  // s * (2b - 1) == s with its sign bit flipped when b == 0 (exact, also for 0, inf and NaN).
  const uint32_t s_bits = std::bit_cast<uint32_t>(scale);
  float* o = out.data();
  unpack_bits(out.size(), payload.data(), [&](size_t j, unsigned bit) {
    o[j] = std::bit_cast<float>(s_bits ^ (static_cast<uint32_t>(bit ^ 1u) << 31));
  });
}

}  // namespace compopt
