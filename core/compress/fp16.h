#pragma once
// `fp16` compressor (docs/algorithms.md): each value rounded to the nearest IEEE half (ties to
// even), 2k bytes of little-endian halves, no scale; encode returns 1. |x| >= 65520 becomes +-inf
// and NaN stays NaN (see half.h), so non-finite results reach the receiver, which must check them.

#include "core/compress/compressor.h"

namespace compopt {

class Fp16Compressor final : public Compressor {
 public:
  std::string name() const override { return "fp16"; }
  size_t payload_bytes(size_t k) const override { return 2 * k; }
  bool has_scale() const override { return false; }

  float encode(std::span<const float> x, std::span<std::byte> payload,
               const RandomKey& key) const override;
  void decode(float scale, std::span<const std::byte> payload, std::span<float> out) const override;
};

}  // namespace compopt
