// sign encode (fused with error feedback) and decode; see kernels.h for the exact contract.
#include <string>

#include "core/util/error.h"
#include "real_backend/cuda_kernels/kernel_common.cuh"
#include "real_backend/cuda_kernels/kernels.h"
#include "real_backend/cuda_kernels/sign_apply.cuh"

namespace compopt::cuda {
namespace detail {
namespace {

// y_i = x_i (zero beyond x_len).
struct PlainSource {
  const float* x;
  size_t x_len;
  __device__ float operator()(size_t i) const { return i < x_len ? x[i] : 0.0f; }
};

// y_i = x_i (zero beyond x_len) + e_i, as ErrorFeedback::compensate on the padded vector; stores
// y_i into e_i, so that the second pass (SignMode::kInPlace) reads e alone, not x and e again.
struct CompensatedSource {
  const float* x;
  size_t x_len;
  float* error;
  __device__ float operator()(size_t i) const {
    const float y = __fadd_rn(i < x_len ? x[i] : 0.0f, error[i]);
    error[i] = y;
    return y;
  }
};

// out[4q + r] = +-scale, one thread per 4 elements (half a payload byte); kVec: out is 16-byte
// aligned.
template <bool kVec>
__global__ void sign_decode_kernel(const uint8_t* payload, const float* scale, size_t k,
                                   float* out) {
  const size_t q = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t i0 = 4 * q;
  if (i0 >= k) return;
  const uint32_t s = __float_as_uint(*scale);
  const uint32_t nibble = static_cast<uint32_t>(payload[q >> 1]) >> (4 * (q & 1));
  float v[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) v[r] = signed_scale(s, (nibble >> r) & 1u);
  store4<kVec>(out, k, i0, v);
}

// Second pass with error feedback: error holds y (CompensatedSource); e = y - decode, and the bits.
void launch_apply_in_place(cudaStream_t stream, float* error, size_t k, const float* scale,
                           std::byte* payload) {
  const auto bytes = reinterpret_cast<uint8_t*>(payload);
  const unsigned blocks = blocks_for(payload_bytes(k));
  if (aligned16(error)) {
    sign_apply<true><<<blocks, kThreads, 0, stream>>>(error, k, scale, bytes, nullptr);
  } else {
    sign_apply<false><<<blocks, kThreads, 0, stream>>>(error, k, scale, bytes, nullptr);
  }
  check_launch("sign_apply");
}

}  // namespace
}  // namespace detail

void sign_encode(GpuContext& gpu, const float* x, size_t x_len, float* error, size_t k,
                 std::byte* payload, float* scale) {
  if (x_len > k) {
    throw InvalidArgument("cuda sign_encode: x_len " + std::to_string(x_len) + " exceeds k " +
                          std::to_string(k) + ", expected x_len <= k");
  }
  using namespace detail;
  const cudaStream_t stream = stream_of(gpu);
  if (k == 0) {
    launch_square_sums(stream, PlainSource{x, 0}, 0, nullptr, scale);
    return;
  }
  void* workspace = gpu.device_scratch(Slot::kKernel, norm_workspace_bytes(k));
  if (error != nullptr) {
    launch_square_sums(stream, CompensatedSource{x, x_len, error}, k, workspace, scale);
    launch_apply_in_place(stream, error, k, scale, payload);
  } else {  // the bits need no scale: one pass writes them with the sum of squares
    launch_square_sums(stream, PlainSource{x, x_len}, k, workspace, scale,
                       reinterpret_cast<uint8_t*>(payload));
  }
}

void sign_decode(GpuContext& gpu, const std::byte* payload, const float* scale, size_t k,
                 float* out) {
  if (k == 0) return;
  using namespace detail;
  const cudaStream_t stream = stream_of(gpu);
  const auto bytes = reinterpret_cast<const uint8_t*>(payload);
  const unsigned blocks = blocks_for((k + 3) / 4);
  if (aligned16(out)) {
    sign_decode_kernel<true><<<blocks, kThreads, 0, stream>>>(bytes, scale, k, out);
  } else {
    sign_decode_kernel<false><<<blocks, kThreads, 0, stream>>>(bytes, scale, k, out);
  }
  check_launch("sign_decode");
}

}  // namespace compopt::cuda
