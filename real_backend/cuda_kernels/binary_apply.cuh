#pragma once
// The binary operator on groups of 8 elements: Philox draws for 8 consecutive global indices and
// the coin flips. Shared by the worker encode (binary_kernels.cu) and the server step.

#include "real_backend/cuda_kernels/kernel_common.cuh"

namespace compopt::cuda::detail {

// u[r] = key.uniform(g0 + r) for r < 8, where g0 % 4 == kPhase: one Philox call per 4 indices.
template <int kPhase>
__device__ __forceinline__ void draw8(const RandomKey& key, uint64_t g0, float u[8]) {
  constexpr int kQuads = (kPhase + 8 + 3) / 4;
  uint32_t words[4 * kQuads];
  const uint64_t q0 = g0 >> 2;
#pragma unroll
  for (int j = 0; j < kQuads; ++j) {
    const PhiloxCounter block = philox_block(key, q0 + static_cast<uint64_t>(j));
#pragma unroll
    for (int w = 0; w < 4; ++w) words[4 * j + w] = block[w];
  }
#pragma unroll
  for (int r = 0; r < 8; ++r) u[r] = uniform_from_bits(words[kPhase + r]);
}

// Encodes y[0, valid) with the binary operator at global indices g0...: returns the packed byte,
// sets err[r] = y[r] - decode and *nan when some y is NaN.
template <int kPhase>
__device__ __forceinline__ uint32_t binary_byte(const float y[8], int valid, const RandomKey& key,
                                                uint64_t g0, float err[8], bool* nan) {
  float u[8];
  draw8<kPhase>(key, g0, u);
  uint32_t byte = 0;
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    if (r >= valid) break;
    const uint32_t bit = binary_coin(y[r], u[r]);
    byte |= bit << r;
    err[r] = __fsub_rn(y[r], plus_minus_one(bit));
    *nan |= y[r] != y[r];
  }
  return byte;
}

// Calls f(std::integral_constant<int, phase>) for phase = g & 3, so kernels get the phase of
// their (8-aligned) global offsets as a compile-time constant.
template <class F>
void with_phase(uint64_t g, F&& f) {
  switch (g & 3u) {
    case 0:
      f(std::integral_constant<int, 0>{});
      break;
    case 1:
      f(std::integral_constant<int, 1>{});
      break;
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    default:
      f(std::integral_constant<int, 3>{});
      break;
  }
}

}  // namespace compopt::cuda::detail
