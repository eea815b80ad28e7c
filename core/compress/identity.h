#pragma once
// `identity` compressor (docs/algorithms.md): the payload is the fp32 values themselves (native
// little-endian bytes), 4k bytes, no scale. encode returns 1. Non-finite values pass through.

#include "core/compress/compressor.h"

namespace compopt {

class IdentityCompressor final : public Compressor {
 public:
  std::string name() const override { return "identity"; }
  size_t payload_bytes(size_t k) const override { return 4 * k; }
  bool has_scale() const override { return false; }

  float encode(std::span<const float> x, std::span<std::byte> payload,
               const RandomKey& key) const override;
  void decode(float scale, std::span<const std::byte> payload, std::span<float> out) const override;
};

}  // namespace compopt
