#pragma once
// Second pass of the sign encode with error feedback (after the scale is known): e holds the
// compensated y (the first pass stored it there); writes the bits, the packed payload and the new
// error e = y - decode. Shared by the worker encode (sign_kernels.cu) and the server step.

#include "real_backend/cuda_kernels/kernel_common.cuh"

namespace compopt::cuda::detail {

// One thread per payload byte (8 elements). When header != nullptr, thread 0 also writes the
// scale's 4 bytes there (the server message). kVec: e is 16-byte aligned.
template <bool kVec>
__global__ void sign_apply(float* e, size_t k, const float* scale, uint8_t* payload,
                           uint8_t* header) {
  const size_t q = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t i0 = 8 * q;
  if (i0 >= k) return;
  const uint32_t s = __float_as_uint(*scale);
  if (header != nullptr && q == 0) {
    for (int b = 0; b < 4; ++b) header[b] = static_cast<uint8_t>(s >> (8 * b));
  }
  float err[8];
  load8<kVec>(e, k, i0, err);
  uint32_t byte = 0;
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    if (i0 + r >= k) break;
    const float v = err[r];
    const uint32_t bit = v >= 0.0f ? 1u : 0u;  // NaN -> 0
    byte |= bit << r;
    err[r] = __fsub_rn(v, signed_scale(s, bit));
  }
  store8<kVec>(e, k, i0, err);
  payload[q] = static_cast<uint8_t>(byte);
}

}  // namespace compopt::cuda::detail
