#pragma once
// `nbit:B` compressor, QSGD-style stochastic quantization for ablations (docs/algorithms.md), B
// in 2..16.
//
// encode: s = ||x||_inf, L = 2^(B-1) - 1, t_j = |x_j| / s * L, level_j = floor(t_j) + (u_j <
// t_j - floor(t_j)) with u_j = key.uniform(key.index_offset + j), so E[decode] = x up to the 2^-24
// resolution of u. Field j is B bits in the LSB-first bitstream: bit 0 = sign (1 iff x_j < 0, so
// -0.0 is positive), bits 1..B-1 = level. decode: s * sign * level / L (computed in double, so
// level L gives exactly +-s). Payload ceil(k*B/8) bytes, wire ceil(k*B/8) + 4 bytes.
//
// s = 0 (all-zero vector or k = 0) gives level 0 everywhere and decodes to zeros. Non-finite
// inputs: s is NaN if some x_j is NaN, else +inf if some |x_j| is inf; levels are then all 0 and
// every decoded element is NaN, so the optimizer layer sees it.

#include <cstdint>

#include "core/compress/compressor.h"

namespace compopt {

class NbitCompressor final : public Compressor {
 public:
  static constexpr unsigned kMinBits = 2;
  static constexpr unsigned kMaxBits = 16;
  static constexpr unsigned kDefaultBits = 8;

  // Throws InvalidArgument unless kMinBits <= bits <= kMaxBits.
  explicit NbitCompressor(unsigned bits = kDefaultBits);

  unsigned bits() const { return bits_; }
  uint32_t levels() const { return levels_; }  // L = 2^(B-1) - 1

  std::string name() const override { return "nbit:" + std::to_string(bits_); }
  size_t payload_bytes(size_t k) const override { return (k * bits_ + 7) / 8; }
  bool has_scale() const override { return true; }
  bool is_stochastic() const override { return true; }

  float encode(std::span<const float> x, std::span<std::byte> payload,
               const RandomKey& key) const override;
  void decode(float scale, std::span<const std::byte> payload, std::span<float> out) const override;

 private:
  unsigned bits_;
  uint32_t levels_;
};

}  // namespace compopt
