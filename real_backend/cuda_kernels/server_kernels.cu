// The compressed allreduce's server step and the final decode of the server messages, plus the
// division of the NCCL mean; see kernels.h for the exact contract.
#include <string>
#include <type_traits>

#include "core/util/error.h"
#include "real_backend/cuda_kernels/binary_apply.cuh"
#include "real_backend/cuda_kernels/kernel_common.cuh"
#include "real_backend/cuda_kernels/kernels.h"
#include "real_backend/cuda_kernels/sign_apply.cuh"

namespace compopt::cuda {
namespace detail {
namespace {

// z / n as the CPU's fp32 division of the mean. For n = 2^p the product z * 2^-p is the same
// correctly rounded value (2^-p is exact, subnormal results included), and costs one
// multiplication instead of an IEEE division.
struct MeanDivisor {
  float n;
  float inverse;  // 1/n when n is a power of two, else 0
  __device__ float operator()(float z) const {
    return inverse != 0.0f ? __fmul_rn(z, inverse) : __fdiv_rn(z, n);
  }
};
MeanDivisor mean_divisor(int n) {
  const bool power_of_two = (n & (n - 1)) == 0;
  return {static_cast<float>(n), power_of_two ? 1.0f / static_cast<float>(n) : 0.0f};
}

// z_i = ((0 + d_0) + d_1 + ...) / n + e_i with d_r = +-scale_r from rank r's payload; stores z
// into e (the in-place sign pass then turns it into the new error).
struct SignServerSource {
  const uint8_t* received;
  const float* scales;
  int n;
  size_t payload;
  float* error;
  MeanDivisor mean;
  __device__ float operator()(size_t i) const {
    const size_t byte = i >> 3;
    const uint32_t shift = static_cast<uint32_t>(i & 7u);
    float z = 0.0f;
    for (int r = 0; r < n; ++r) {
      const uint32_t bit = (received[static_cast<size_t>(r) * payload + byte] >> shift) & 1u;
      z = __fadd_rn(z, signed_scale(__float_as_uint(scales[r]), bit));
    }
    z = __fadd_rn(mean(z), error[i]);
    error[i] = z;
    return z;
  }
};

// Binary server step, one thread per payload byte of the chunk (chunk is a multiple of 8).
template <bool kVec, int kPhase>
__global__ void binary_server(const uint8_t* received, int n, MeanDivisor mean, size_t payload,
                              size_t chunk, float* error, uint8_t* out, RandomKey key) {
  const size_t q = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t i0 = 8 * q;
  if (i0 >= chunk) return;
  float z[8], err[8];
#pragma unroll
  for (int r = 0; r < 8; ++r) z[r] = 0.0f;
  for (int rank = 0; rank < n; ++rank) {
    const uint32_t byte = received[static_cast<size_t>(rank) * payload + q];
#pragma unroll
    for (int r = 0; r < 8; ++r) z[r] = __fadd_rn(z[r], plus_minus_one((byte >> r) & 1u));
  }
  load8<kVec>(error, chunk, i0, err);
#pragma unroll
  for (int r = 0; r < 8; ++r) z[r] = __fadd_rn(mean(z[r]), err[r]);
  bool nan = false;
  out[q] = static_cast<uint8_t>(binary_byte<kPhase>(z, 8, key, key.index_offset + i0, err, &nan));
  store8<kVec>(error, chunk, i0, err);
}

// out[i] for i < out_len from message i / chunk, one thread per 4 elements (chunk is a multiple
// of 8, so they share a message byte); kSign: scale = the message's first 4 bytes.
template <bool kSign, bool kVec>
__global__ void decode_messages_kernel(const uint8_t* messages, size_t chunk, size_t message_bytes,
                                       float* out, size_t out_len) {
  const size_t q = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t i0 = 4 * q;
  if (i0 >= out_len) return;
  const size_t j = i0 / chunk, local = i0 - j * chunk;
  const uint8_t* message = messages + j * message_bytes;
  uint32_t s = 0x3F800000u;  // binary: 2b - 1
  if constexpr (kSign)
    s = __float_as_uint(load_unaligned_float(reinterpret_cast<const std::byte*>(message)));
  const uint32_t byte = message[(kSign ? sizeof(float) : 0) + local / 8];
  const uint32_t nibble = byte >> (local & 4u);
  float v[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) v[r] = signed_scale(s, (nibble >> r) & 1u);
  store4<kVec>(out, out_len, i0, v);
}

__global__ void divide_kernel(const float* in, float divisor, size_t k, float* out) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < k) out[i] = __fdiv_rn(in[i], divisor);
}

}  // namespace
}  // namespace detail

void server_step(GpuContext& gpu, Codec codec, const std::byte* received, const float* scales,
                 int n, size_t chunk, float* server_error, std::byte* message,
                 const RandomKey& key) {
  if (n < 1 || chunk % 8 != 0) {
    throw InvalidArgument("cuda server_step: " + std::to_string(n) + " ranks and a chunk of " +
                          std::to_string(chunk) + " elements, expected n >= 1 and a multiple of 8");
  }
  using namespace detail;
  const cudaStream_t stream = stream_of(gpu);
  if (chunk == 0) {  // an empty sign message still carries its scale, 0
    if (codec == Codec::kSign)
      check_cuda(cudaMemsetAsync(message, 0, sizeof(float), stream), "cudaMemsetAsync");
    return;
  }
  const auto* in = reinterpret_cast<const uint8_t*>(received);
  auto* out = reinterpret_cast<uint8_t*>(message);
  const size_t payload = payload_bytes(chunk);
  const unsigned blocks = blocks_for(payload);
  if (codec == Codec::kSign) {
    if (scales == nullptr)
      throw InvalidArgument("cuda server_step: sign needs the worker scales, got null");
    // The scale goes to the kernel workspace, right after the chunk sums.
    const size_t sums = norm_workspace_bytes(chunk);
    auto* workspace = static_cast<char*>(gpu.device_scratch(Slot::kKernel, sums + sizeof(float)));
    auto* scale = reinterpret_cast<float*>(workspace + sums);
    launch_square_sums(stream,
                       SignServerSource{in, scales, n, payload, server_error, mean_divisor(n)},
                       chunk, workspace, scale);
    if (aligned16(server_error)) {
      sign_apply<true>
          <<<blocks, kThreads, 0, stream>>>(server_error, chunk, scale, out + sizeof(float), out);
    } else {
      sign_apply<false>
          <<<blocks, kThreads, 0, stream>>>(server_error, chunk, scale, out + sizeof(float), out);
    }
    check_launch("sign_apply (server)");
    return;
  }
  const bool vec = aligned16(server_error);
  with_phase(key.index_offset, [&](auto phase) {
    constexpr int kPhase = decltype(phase)::value;
    if (vec) {
      binary_server<true, kPhase><<<blocks, kThreads, 0, stream>>>(in, n, mean_divisor(n), payload,
                                                                   chunk, server_error, out, key);
    } else {
      binary_server<false, kPhase><<<blocks, kThreads, 0, stream>>>(in, n, mean_divisor(n), payload,
                                                                    chunk, server_error, out, key);
    }
  });
  check_launch("binary_server");
}

void decode_messages(GpuContext& gpu, Codec codec, const std::byte* messages, size_t count,
                     size_t chunk, float* out, size_t out_len) {
  if (out_len > count * chunk || (out_len > 0 && chunk % 8 != 0)) {
    throw InvalidArgument("cuda decode_messages: " + std::to_string(out_len) + " outputs from " +
                          std::to_string(count) + " messages of " + std::to_string(chunk) +
                          " elements, expected at most count * chunk and chunk a multiple of 8");
  }
  if (out_len == 0) return;
  using namespace detail;
  const cudaStream_t stream = stream_of(gpu);
  const auto* in = reinterpret_cast<const uint8_t*>(messages);
  const size_t bytes = message_bytes(codec, chunk);
  const unsigned blocks = blocks_for((out_len + 3) / 4);
  const bool vec = aligned16(out);
  if (codec == Codec::kSign) {
    if (vec) {
      decode_messages_kernel<true, true>
          <<<blocks, kThreads, 0, stream>>>(in, chunk, bytes, out, out_len);
    } else {
      decode_messages_kernel<true, false>
          <<<blocks, kThreads, 0, stream>>>(in, chunk, bytes, out, out_len);
    }
  } else {
    if (vec) {
      decode_messages_kernel<false, true>
          <<<blocks, kThreads, 0, stream>>>(in, chunk, bytes, out, out_len);
    } else {
      decode_messages_kernel<false, false>
          <<<blocks, kThreads, 0, stream>>>(in, chunk, bytes, out, out_len);
    }
  }
  check_launch("decode_messages");
}

void divide(GpuContext& gpu, const float* in, float divisor, size_t k, float* out) {
  if (k == 0) return;
  using namespace detail;
  divide_kernel<<<static_cast<unsigned>((k + kThreads - 1) / kThreads), kThreads, 0,
                  stream_of(gpu)>>>(in, divisor, k, out);
  check_launch("divide");
}

}  // namespace compopt::cuda
