#pragma once
// `sign` compressor, the 1-bit operator of 1-bit Adam / 1-bit LAMB (SPEC §1).
//
// encode: scale s = ||x||_2 / sqrt(k) (sum of squares accumulated in double, in a fixed order, so
// it never overflows and does not depend on threads), bit b_j = (x_j >= 0) packed LSB-first
// (-0.0 and +0.0 give 1). decode: s * (2b_j - 1). Payload ceil(k/8) bytes, unused high bits of
// the last byte 0; wire ceil(k/8) + 4 bytes. k = 0 and the all-zero vector give s = 0 and decode
// to zeros, never NaN.
//
// Non-finite inputs: any NaN makes s NaN, else any +-inf makes s +inf, so every decoded element is
// non-finite and the optimizer layer sees it; a NaN element's bit is 0.

#include "core/compress/compressor.h"

namespace compopt {

class SignCompressor final : public Compressor {
 public:
  std::string name() const override { return "sign"; }
  size_t payload_bytes(size_t k) const override { return (k + 7) / 8; }
  bool has_scale() const override { return true; }

  float encode(std::span<const float> x, std::span<std::byte> payload,
               const RandomKey& key) const override;
  void decode(float scale, std::span<const std::byte> payload, std::span<float> out) const override;
};

}  // namespace compopt
