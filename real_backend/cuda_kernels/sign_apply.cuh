#pragma once
// Second pass of the sign encode (after the scale is known): bits, packed payload and, with error
// feedback, the new error. Shared by the worker encode (sign_kernels.cu) and the server step.

#include "real_backend/cuda_kernels/kernel_common.cuh"

namespace compopt::cuda::detail {

enum class SignMode {
  kPlain,       // y = x (zero beyond x_len); no error feedback
  kCompensate,  // y = x (zero beyond x_len) + e; e = y - decode
  kInPlace,     // y = e (already compensated); e = y - decode
};

// One thread per payload byte (8 elements). When header != nullptr, thread 0 also writes the
// scale's 4 bytes there (the server message). kVec: x and e are 16-byte aligned.
template <SignMode kMode, bool kVec>
__global__ void sign_apply(const float* x, size_t x_len, float* e, size_t k, const float* scale,
                           uint8_t* payload, uint8_t* header) {
  const size_t q = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t i0 = 8 * q;
  if (i0 >= k) return;
  const uint32_t s = __float_as_uint(*scale);
  if (header != nullptr && q == 0) {
    for (int b = 0; b < 4; ++b) header[b] = static_cast<uint8_t>(s >> (8 * b));
  }
  float y[8], err[8];
  if constexpr (kMode != SignMode::kInPlace) load8<kVec>(x, x_len, i0, y);
  if constexpr (kMode != SignMode::kPlain) load8<kVec>(e, k, i0, err);
  uint32_t byte = 0;
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    if (i0 + r >= k) break;
    float v;
    if constexpr (kMode == SignMode::kPlain) {
      v = y[r];
    } else if constexpr (kMode == SignMode::kCompensate) {
      v = __fadd_rn(y[r], err[r]);
    } else {
      v = err[r];
    }
    const uint32_t bit = v >= 0.0f ? 1u : 0u;  // NaN -> 0
    byte |= bit << r;
    if constexpr (kMode != SignMode::kPlain) err[r] = __fsub_rn(v, signed_scale(s, bit));
  }
  if constexpr (kMode != SignMode::kPlain) store8<kVec>(e, k, i0, err);
  payload[q] = static_cast<uint8_t>(byte);
}

}  // namespace compopt::cuda::detail
