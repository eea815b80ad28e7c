#pragma once
// Device helpers shared by the .cu files of real_backend/cuda_kernels: exact fp arithmetic
// (explicit round-to-nearest intrinsics, so nvcc never contracts into FMAs the CPU does not use),
// 8-element loads/stores, the sign-bit decode, Philox draws, and the canonical chunked sum of
// squares of the sign scale (kernels.h).

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/compress/philox.h"
#include "core/compress/random_key.h"
#include "real_backend/cuda_kernels/cuda_error.h"

namespace compopt::cuda::detail {

inline constexpr int kThreads = 256;  // threads per block of the elementwise kernels

inline unsigned blocks_for(size_t threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

inline void check_launch(const char* kernel) { check_cuda(cudaGetLastError(), kernel); }

// True when every pointer is 16-byte aligned (float4 access to groups of 8 floats).
inline bool aligned16(const void* a, const void* b = nullptr, const void* c = nullptr) {
  const auto bad = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) != 0; };
  return !bad(a) && !bad(b) && !bad(c);
}

// v[r] = p[i0 + r] for i0 + r < len, else 0. kVec: p is 16-byte aligned.
template <bool kVec>
__device__ __forceinline__ void load8(const float* p, size_t len, size_t i0, float v[8]) {
  if (kVec && i0 + 8 <= len) {
    const float4 a = reinterpret_cast<const float4*>(p + i0)[0];
    const float4 b = reinterpret_cast<const float4*>(p + i0)[1];
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
  } else {
#pragma unroll
    for (int r = 0; r < 8; ++r) v[r] = i0 + r < len ? p[i0 + r] : 0.0f;
  }
}

// p[i0 + r] = v[r] for i0 + r < len.
template <bool kVec>
__device__ __forceinline__ void store8(float* p, size_t len, size_t i0, const float v[8]) {
  if (kVec && i0 + 8 <= len) {
    reinterpret_cast<float4*>(p + i0)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(p + i0)[1] = make_float4(v[4], v[5], v[6], v[7]);
  } else {
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      if (i0 + r < len) p[i0 + r] = v[r];
    }
  }
}

// p[i0 + r] = v[r] for r < 4 and i0 + r < len; the decoders give each thread 4 elements so a
// warp's float4 stores cover 512 contiguous bytes. kVec: p is 16-byte aligned.
template <bool kVec>
__device__ __forceinline__ void store4(float* p, size_t len, size_t i0, const float v[4]) {
  if (kVec && i0 + 4 <= len) {
    reinterpret_cast<float4*>(p + i0)[0] = make_float4(v[0], v[1], v[2], v[3]);
  } else {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      if (i0 + r < len) p[i0 + r] = v[r];
    }
  }
}

// s * (2b - 1) as the CPU computes it: s with its sign bit flipped when b == 0.
__device__ __forceinline__ float signed_scale(uint32_t scale_bits, uint32_t bit) {
  return __uint_as_float(scale_bits ^ ((bit ^ 1u) << 31));
}

// 2b - 1 for the binary operator.
__device__ __forceinline__ float plus_minus_one(uint32_t bit) {
  return __uint_as_float(0x3F800000u | ((bit ^ 1u) << 31));
}

// Reads a little-endian float from 4 possibly unaligned bytes.
__device__ __forceinline__ float load_unaligned_float(const std::byte* p) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  return __uint_as_float(static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 |
                         static_cast<uint32_t>(b[2]) << 16 | static_cast<uint32_t>(b[3]) << 24);
}

// RandomKey::block(q) of core/compress/random_key.h, on the device.
__device__ __forceinline__ PhiloxCounter philox_block(const RandomKey& key, uint64_t q) {
  const PhiloxCounter ctr = {static_cast<uint32_t>(q),
                             static_cast<uint32_t>(q >> 32) ^ (key.stream << 16),
                             static_cast<uint32_t>(key.step), key.rank};
  const PhiloxKey k = {static_cast<uint32_t>(key.seed), static_cast<uint32_t>(key.seed >> 32) ^
                                                            static_cast<uint32_t>(key.step >> 32)};
  return philox4x32_10(ctr, k);
}

// Binary coin of docs/algorithms.md as core/compress/binary.cc computes it: 1 iff u <
// clamp((y+1)/2, 0, 1); NaN y gives 0.
__device__ __forceinline__ uint32_t binary_coin(float y, float u) {
  float p = __fmul_rn(__fadd_rn(y, 1.0f), 0.5f);
  p = p < 0.0f ? 0.0f : p;
  p = p > 1.0f ? 1.0f : p;
  return u < p ? 1u : 0u;
}

// ---- Canonical sum of squares (the sign scale) ----------------------------------------------

inline constexpr size_t kNormChunk = 65536;  // elements per chunk of the canonical order
inline constexpr int kNormTile = 2048;       // elements staged in shared memory per step
inline constexpr int kNormLoaders = 256;     // loader threads; warp 0 sums
inline constexpr int kNormThreads = 32 + kNormLoaders;

// Workspace of chunk_square_sums: [done counter][pad][chunk sums...].
struct NormWorkspace {
  unsigned* done;      // zero between launches (the last block resets it)
  double* chunk_sums;  // one per chunk
};
inline size_t norm_workspace_bytes(size_t k) {
  return 16 + sizeof(double) * ((k + kNormChunk - 1) / kNormChunk);
}
inline NormWorkspace norm_workspace(void* base) {
  return {static_cast<unsigned*>(base), reinterpret_cast<double*>(static_cast<char*>(base) + 16)};
}

// Called by all 32 lanes of a warp whose lanes hold consecutive elements i (lane 0's is a
// multiple of 32): writes their sign bits (NaN -> 0) as 4 payload bytes, those below k.
__device__ __forceinline__ void pack_sign_bits(bool bit, size_t i, size_t k, uint8_t* bits) {
  const unsigned word = __ballot_sync(0xFFFFFFFFu, bit);
  const unsigned lane = threadIdx.x % 32;
  const size_t first = i - lane;  // the warp's first element
  if (lane < 4 && first + 8 * lane < k)
    bits[first / 8 + lane] = static_cast<uint8_t>(word >> (8 * lane));
}

// One block per chunk of kNormChunk elements of y, where y_i = source(i) (source may also store
// y_i somewhere; it is called exactly once per i < k). When bits != nullptr the loaders also write
// the sign payload of y (b_i = y_i >= 0, LSB-first, payload_bytes(k) bytes): each loader warp
// holds 32 consecutive elements per fetch, so one ballot gives 4 payload bytes and a sign encode
// without error feedback needs no second pass. Loader warps stage tiles of the exact
// squares double(y_i)^2 in shared memory (double-buffered, the next tile's y prefetched into
// registers) while lanes 0..7 of warp 0 run the 8 sequential lane sums, one dependent addition
// per element and nothing else on that critical path; the last block to finish adds the chunk
// sums in order and writes *scale = float(sqrt(total / k)).
template <class Source>
__global__ void __launch_bounds__(kNormThreads)
    chunk_square_sums(Source source, size_t k, NormWorkspace ws, float* scale, uint8_t* bits) {
  __shared__ double tile[2][kNormTile];  // squares
  const size_t begin = static_cast<size_t>(blockIdx.x) * kNormChunk;
  const size_t len = k - begin < kNormChunk ? k - begin : kNormChunk;
  const int tiles = static_cast<int>((len + kNormTile - 1) / kNormTile);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  // Loader threads fetch the y of tile t + 2 into registers while they stage the squares of
  // tile t + 1 and warp 0 sums tile t, so global-memory latency hides behind two tiles of sums.
  constexpr int kPerLoader = kNormTile / kNormLoaders;
  const int j = static_cast<int>(threadIdx.x) - 32;
  float next[kPerLoader];
  const auto fetch = [&](int t) {
#pragma unroll
    for (int m = 0; m < kPerLoader; ++m) {
      const size_t offset =
          static_cast<size_t>(t) * kNormTile + static_cast<size_t>(j + m * kNormLoaders);
      // Zero padding is exact: acc is +0, positive, inf or NaN, and acc + 0.0 == acc for those.
      const bool inside = offset < len;
      next[m] = inside ? source(begin + offset) : 0.0f;
      if (bits != nullptr) pack_sign_bits(inside && next[m] >= 0.0f, begin + offset, k, bits);
    }
  };
  const auto stage = [&](int buffer) {
#pragma unroll
    for (int m = 0; m < kPerLoader; ++m) {
      const double v = static_cast<double>(next[m]);
      tile[buffer][j + m * kNormLoaders] = __dmul_rn(v, v);
    }
  };

  if (warp > 0) {
    fetch(0);
    stage(0);
    if (tiles > 1) fetch(1);
  }
  __syncthreads();
  double acc = 0.0;
  for (int t = 0; t < tiles; ++t) {
    if (warp == 0) {
      if (lane < 8) {
        const double* squares = tile[t & 1];
#pragma unroll 16
        for (int i = 0; i < kNormTile / 8; ++i) acc = __dadd_rn(acc, squares[8 * i + lane]);
      }
    } else if (t + 1 < tiles) {
      stage((t + 1) & 1);
      if (t + 2 < tiles) fetch(t + 2);
    }
    __syncthreads();
  }
  if (warp != 0) return;
  // ((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7)) in lane 0 (lanes >= 8 hold 0 and are never used).
  const double p1 = __dadd_rn(acc, __shfl_down_sync(0xFFFFFFFFu, acc, 1));
  const double p2 = __dadd_rn(p1, __shfl_down_sync(0xFFFFFFFFu, p1, 2));
  const double p3 = __dadd_rn(p2, __shfl_down_sync(0xFFFFFFFFu, p2, 4));
  if (lane != 0) return;
  ws.chunk_sums[blockIdx.x] = p3;
  __threadfence();
  const unsigned ticket = atomicAdd(ws.done, 1u);
  if (ticket != gridDim.x - 1) return;
  double total = 0.0;
  for (unsigned c = 0; c < gridDim.x; ++c) total = __dadd_rn(total, __ldcg(ws.chunk_sums + c));
  *scale = __double2float_rn(__dsqrt_rn(__ddiv_rn(total, static_cast<double>(k))));
  *ws.done = 0;
}

// Launches chunk_square_sums on the stream; k == 0 writes *scale = 0.
template <class Source>
void launch_square_sums(cudaStream_t stream, const Source& source, size_t k, void* workspace,
                        float* scale, uint8_t* bits = nullptr) {
  if (k == 0) {
    check_cuda(cudaMemsetAsync(scale, 0, sizeof(float), stream), "cudaMemsetAsync(scale)");
    return;
  }
  const auto chunks = static_cast<unsigned>((k + kNormChunk - 1) / kNormChunk);
  chunk_square_sums<<<chunks, kNormThreads, 0, stream>>>(source, k, norm_workspace(workspace),
                                                         scale, bits);
  check_launch("chunk_square_sums");
}

}  // namespace compopt::cuda::detail
