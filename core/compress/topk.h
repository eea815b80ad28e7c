#pragma once
// `topk:R` compressor (sparsification; use it with error feedback): keeps the
// k = ceil(R*n) elements of largest magnitude of an n-element vector, R in (0, 1]
// (`topk` means R = 0.01). R*n is rounded down by a few ulps first, so a decimal ratio
// gives the count it names (0.1 of 30 keeps 3, not 4). Ties in magnitude go to the lower
// index; NaN ranks above every number, so a NaN input reaches the receiver.
//
// Wire format (little-endian, no scale): k as uint32, then k pairs (uint32 index, fp32
// value) in increasing index order; payload_bytes(n) = wire_bytes(n) = 4 + 8*k exactly.
// decode writes zeros except at the k indices, and throws InvalidArgument for a count that
// is not k, an index >= n or indices not strictly increasing.
//
// Not chunkable: the payload of a slice of a vector is not a byte range of the vector's
// payload, so the compressed allreduce refuses it (use it in an EF round trip, or as the
// message of an allgather).

#include <cstdint>

#include "core/compress/compressor.h"

namespace compopt {

class TopkCompressor final : public Compressor {
 public:
  static constexpr double kDefaultRatio = 0.01;

  // Throws InvalidArgument unless 0 < ratio <= 1.
  explicit TopkCompressor(double ratio = kDefaultRatio);

  double ratio() const { return ratio_; }
  // k for an n-element vector.
  size_t kept(size_t n) const;

  std::string name() const override;
  size_t payload_bytes(size_t n) const override { return 4 + 8 * kept(n); }
  bool has_scale() const override { return false; }
  bool chunkable() const override { return false; }

  float encode(std::span<const float> x, std::span<std::byte> payload,
               const RandomKey& key) const override;
  void decode(float scale, std::span<const std::byte> payload, std::span<float> out) const override;

 private:
  double ratio_;
};

}  // namespace compopt
