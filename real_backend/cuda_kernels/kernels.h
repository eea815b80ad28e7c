#pragma once
// CUDA kernels of the 1-bit compressors (docs/algorithms.md) and of the compressed allreduce's
// worker and server steps (docs/algorithms.md), bit-identical to the CPU compressors of
// core/compress for the same inputs and RandomKey:
//   sign   scale = float(sqrt(total / k)) with the canonical sum of squares: chunks of 65536
//          elements, 8 double lanes per chunk (acc[i % 8] += double(y_i)^2 in index order),
//          chunk sum ((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7)), chunk sums added in order from 0.0;
//          bits b_i = (y_i >= 0) packed LSB-first; decode s * (2b - 1) as a sign-bit flip.
//   binary p_i = clamp((y_i + 1)/2, 0, 1), b_i = (u_i < p_i) with u_i the Philox draw of
//          RandomKey (key.index_offset + i); decode 2b - 1.
// Error feedback is fused into the encode's passes (sign: 2, binary: 1), without temporaries:
// y = x + e, then e = y - decode(encode(y)).
//
// Every pointer is device memory; the calling thread's current device must be gpu.device().
// Every call only queues work on gpu.stream() (asynchronous; call gpu.synchronize() before
// reading results on the host). Buffers of one call must not
// overlap except where stated. A kernel uses the context's Slot::kKernel scratch, so calls on
// one context run one after another, as the stream orders them.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/compress/compressor.h"
#include "core/compress/random_key.h"
#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::cuda {

enum class Codec { kSign, kBinary };

// kSign for "sign", kBinary for "binary"; nullopt for compressors without GPU kernels.
std::optional<Codec> codec_for(std::string_view compressor_name);
inline std::optional<Codec> codec_for(const Compressor& c) { return codec_for(c.name()); }

inline constexpr size_t payload_bytes(size_t k) { return (k + 7) / 8; }
// Server message: [scale, 4 bytes, sign only][payload], as in compressed_allreduce.h.
inline constexpr size_t message_bytes(Codec codec, size_t k) {
  return payload_bytes(k) + (codec == Codec::kSign ? sizeof(float) : 0);
}

// Encodes y (k elements): y_i = v_i + error[i] when error != nullptr, else y_i = v_i, where
// v_i = x[i] for i < x_len and 0 beyond (x_len <= k: the compressed allreduce's zero padding).
// Writes payload (payload_bytes(k) bytes) and *scale (a device float); with error feedback also
// error = y - decode. x may equal error.
void sign_encode(GpuContext& gpu, const float* x, size_t x_len, float* error, size_t k,
                 std::byte* payload, float* scale);
// out[i] = +-(*scale) for i < k.
void sign_decode(GpuContext& gpu, const std::byte* payload, const float* scale, size_t k,
                 float* out);

// As sign_encode with the binary operator; *nan_flag (if not null) becomes 1 when some y_i is
// NaN, else 0 (the CPU encode returns NaN then).
void binary_encode(GpuContext& gpu, const float* x, size_t x_len, float* error, size_t k,
                   std::byte* payload, const RandomKey& key, uint32_t* nan_flag);
void binary_decode(GpuContext& gpu, const std::byte* payload, size_t k, float* out);

// Server step of rank `rank` of n (phase 3 of the compressed allreduce) on a chunk of `chunk`
// elements (a multiple of 8): received holds n payloads of payload_bytes(chunk) bytes (payload i
// from rank i), scales the n worker scales (sign only; may be null for binary). Computes
//   z = ((0 + decode_0) + decode_1 + ... + decode_{n-1}) / n + server_error   (in fp32, rank order)
// writes message = [scale][payload] of encode(z) (message_bytes(codec, chunk) bytes), and
// server_error = z - decode(message). `key` is used as given (the caller sets stream and offset).
void server_step(GpuContext& gpu, Codec codec, const std::byte* received, const float* scales,
                 int n, size_t chunk, float* server_error, std::byte* message,
                 const RandomKey& key);

// Decodes `count` consecutive server messages of `chunk` elements each into out[0, out_len)
// (out_len <= count * chunk; the tail beyond out_len is dropped).
void decode_messages(GpuContext& gpu, Codec codec, const std::byte* messages, size_t count,
                     size_t chunk, float* out, size_t out_len);

// out[i] = in[i] / divisor for i < k (fp32 division, as the CPU's mean).
void divide(GpuContext& gpu, const float* in, float divisor, size_t k, float* out);

}  // namespace compopt::cuda
