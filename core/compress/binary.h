#pragma once
// `binary` compressor, Birder's stochastic 1-bit operator ([BIR]; docs/algorithms.md).
//
// encode: p_j = clamp((x_j + 1)/2, 0, 1); b_j = 1 iff key.uniform(key.index_offset + j) < p_j,
// so E[decode] = x for x in [-1, 1] (values outside clamp to +-1, p = 0 and p = 1 are
// deterministic). decode: 2b_j - 1. Payload ceil(k/8) bytes LSB-first, no scale, wire ceil(k/8).
// Bits depend only on (key, global index), never on how a vector is split into encodes.
//
// encode returns 1, or NaN when some x_j is NaN (that element's bit is 0): with no scale on the
// wire, the return value is the only non-finite signal and callers that care must check it.

#include "core/compress/compressor.h"

namespace compopt {

class BinaryCompressor final : public Compressor {
 public:
  std::string name() const override { return "binary"; }
  size_t payload_bytes(size_t k) const override { return (k + 7) / 8; }
  bool has_scale() const override { return false; }
  bool is_stochastic() const override { return true; }

  float encode(std::span<const float> x, std::span<std::byte> payload,
               const RandomKey& key) const override;
  void decode(float scale, std::span<const std::byte> payload, std::span<float> out) const override;
};

}  // namespace compopt
