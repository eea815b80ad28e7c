#pragma once
// `sign` compressor, the 1-bit operator of 1-bit Adam / 1-bit LAMB (docs/algorithms.md).
//
// encode: scale s = ||x||_2 / sqrt(k), bit b_j = (x_j >= 0) packed LSB-first (-0.0 and +0.0
// give 1). decode: s * (2b_j - 1). Payload ceil(k/8) bytes, unused high bits of the last byte 0;
// wire ceil(k/8) + 4 bytes. k = 0 and the all-zero vector give s = 0 and decode to zeros, never
// NaN.
//
// Canonical sum of squares (the order every implementation, CPU or GPU, must follow so that the
// scale is bit-identical; it does not depend on threads or the instruction set):
//   - the vector is cut into chunks of kNormChunk = 65536 elements (the last one shorter);
//   - inside a chunk, 8 double accumulators a0..a7 start at +0.0 and, in index order,
//     a[i % 8] += double(x_i) * double(x_i)  (i counted from the chunk start; the product of two
//     floats is exact in double, so a fused multiply-add gives the same sum);
//   - chunk sum = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
//   - total = +0.0, then total += chunk sum for each chunk in chunk order;
//   - s = float(sqrt(total / double(k))), and s = 0 for k = 0.
// For k <= 65536 this is one chunk. The sum cannot overflow: squares of finite floats fit a
// double.
//
// Non-finite inputs: any NaN makes s NaN, else any +-inf makes s +inf, so every decoded element is
// non-finite and the optimizer layer sees it; a NaN element's bit is 0.
//
// Speed: AVX2 kernels when the CPU has them (simd_level.h), and the thread pool of
// parallel_for.h from kParallelMinElements elements on; results are identical on every path.

#include <span>

#include "core/compress/compressor.h"

namespace compopt {

// Elements per chunk of the canonical sum of squares above.
inline constexpr size_t kNormChunk = 65536;

class SignCompressor final : public Compressor {
 public:
  std::string name() const override { return "sign"; }
  size_t payload_bytes(size_t k) const override { return (k + 7) / 8; }
  bool has_scale() const override { return true; }

  float encode(std::span<const float> x, std::span<std::byte> payload,
               const RandomKey& key) const override;
  void decode(float scale, std::span<const std::byte> payload, std::span<float> out) const override;
};

// The canonical total above (before the division by k and the square root).
double sign_sum_of_squares(std::span<const float> x);

}  // namespace compopt
