// binary encode (fused with error feedback) and decode; see kernels.h for the exact contract.
#include <string>
#include <type_traits>

#include "core/util/error.h"
#include "real_backend/cuda_kernels/binary_apply.cuh"
#include "real_backend/cuda_kernels/kernel_common.cuh"
#include "real_backend/cuda_kernels/kernels.h"

namespace compopt::cuda {
namespace detail {
namespace {

// One thread per payload byte. kCompensate: y = x (zero beyond x_len) + e and e = y - decode;
// else y = x. kVec: x and e are 16-byte aligned.
template <bool kCompensate, bool kVec, int kPhase>
__global__ void binary_apply(const float* x, size_t x_len, float* e, size_t k, uint8_t* payload,
                             RandomKey key, uint32_t* nan_flag) {
  const size_t q = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t i0 = 8 * q;
  if (i0 >= k) return;
  float y[8], err[8];
  load8<kVec>(x, x_len, i0, y);
  if constexpr (kCompensate) {
    load8<kVec>(e, k, i0, err);
#pragma unroll
    for (int r = 0; r < 8; ++r) y[r] = __fadd_rn(y[r], err[r]);
  }
  const int valid = k - i0 < 8 ? static_cast<int>(k - i0) : 8;
  bool nan = false;
  payload[q] =
      static_cast<uint8_t>(binary_byte<kPhase>(y, valid, key, key.index_offset + i0, err, &nan));
  if constexpr (kCompensate) store8<kVec>(e, k, i0, err);
  if (nan && nan_flag != nullptr) atomicOr(nan_flag, 1u);
}

template <bool kVec>
__global__ void binary_decode_kernel(const uint8_t* payload, size_t k, float* out) {
  const size_t q = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;  // 4 elements
  const size_t i0 = 4 * q;
  if (i0 >= k) return;
  const uint32_t nibble = static_cast<uint32_t>(payload[q >> 1]) >> (4 * (q & 1));
  float v[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) v[r] = plus_minus_one((nibble >> r) & 1u);
  store4<kVec>(out, k, i0, v);
}

template <bool kCompensate>
void launch_binary(cudaStream_t stream, const float* x, size_t x_len, float* e, size_t k,
                   uint8_t* payload, const RandomKey& key, uint32_t* nan_flag) {
  const unsigned blocks = blocks_for(payload_bytes(k));
  const bool vec = aligned16(x, e);
  with_phase(key.index_offset, [&](auto phase) {
    constexpr int kPhase = decltype(phase)::value;
    if (vec) {
      binary_apply<kCompensate, true, kPhase>
          <<<blocks, kThreads, 0, stream>>>(x, x_len, e, k, payload, key, nan_flag);
    } else {
      binary_apply<kCompensate, false, kPhase>
          <<<blocks, kThreads, 0, stream>>>(x, x_len, e, k, payload, key, nan_flag);
    }
  });
  check_launch("binary_apply");
}

}  // namespace
}  // namespace detail

void binary_encode(GpuContext& gpu, const float* x, size_t x_len, float* error, size_t k,
                   std::byte* payload, const RandomKey& key, uint32_t* nan_flag) {
  if (x_len > k) {
    throw InvalidArgument("cuda binary_encode: x_len " + std::to_string(x_len) + " exceeds k " +
                          std::to_string(k) + ", expected x_len <= k");
  }
  using namespace detail;
  const cudaStream_t stream = stream_of(gpu);
  if (nan_flag != nullptr)
    check_cuda(cudaMemsetAsync(nan_flag, 0, sizeof(uint32_t), stream), "cudaMemsetAsync");
  if (k == 0) return;
  auto* bytes = reinterpret_cast<uint8_t*>(payload);
  if (error != nullptr) {
    launch_binary<true>(stream, x, x_len, error, k, bytes, key, nan_flag);
  } else {
    launch_binary<false>(stream, x, x_len, nullptr, k, bytes, key, nan_flag);
  }
}

void binary_decode(GpuContext& gpu, const std::byte* payload, size_t k, float* out) {
  if (k == 0) return;
  using namespace detail;
  const cudaStream_t stream = stream_of(gpu);
  const auto* bytes = reinterpret_cast<const uint8_t*>(payload);
  const unsigned blocks = blocks_for((k + 3) / 4);
  if (aligned16(out)) {
    binary_decode_kernel<true><<<blocks, kThreads, 0, stream>>>(bytes, k, out);
  } else {
    binary_decode_kernel<false><<<blocks, kThreads, 0, stream>>>(bytes, k, out);
  }
  check_launch("binary_decode");
}

}  // namespace compopt::cuda
