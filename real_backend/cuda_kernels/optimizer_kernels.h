#pragma once
// CUDA kernels of the optimizer updates (docs/algorithms.md "Optimizers"), element for element
// the fp32 arithmetic of core/optim: every operation rounds to nearest in the CPU's order
// (explicit __fmul_rn/__fadd_rn/__fdiv_rn/__fsqrt_rn, compiled with -fmad=false), so for the same
// inputs the elementwise results are bit-identical to
//   apply_update, ema, ema_square (vector_ops.h), momentum_update (momentum.h) and
//   adam_direction (adam.h).
// LAMB's per-tensor norms are double sums in a fixed order that differs from the CPU's
// sequential sum (see SegmentTable); the trust coefficient then agrees with the CPU's to within
// the sequential sum's error (at most n x 2^-53 relative for n elements, typically ~1e-14), and
// the updated parameters to the float rounding of lr * c.
//
// Every pointer is device memory; the calling thread's current device must be gpu.device();
// every call only queues work on gpu.stream(). In-place arguments are stated per call.

#include <cstddef>
#include <cstdint>

#include "core/optim/adam.h"
#include "core/optim/momentum.h"
#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::cuda {

// The per-step scalars of adam_direction: c1 = 1-b1^t, c2 = 1-b2^t (computed in double and
// rounded to float, as the CPU) with bias correction, else 1; one_minus_b = 1.0f - b in fp32.
struct AdamFactors {
  float beta1 = 0, beta2 = 0, one_minus_beta1 = 1, one_minus_beta2 = 1;
  float c1 = 1, c2 = 1, eps = 0;
};
AdamFactors adam_factors(const AdamOptions& options, int64_t t, float eps);

// x -= lr * (g + wd * x)  (apply_update; plain SGD).
void sgd_update(GpuContext& gpu, float* x, const float* g, size_t d, float lr, float wd);

// momentum_update(options, m, g, dir) then apply_update(x, dir, lr, wd).
void momentum_sgd_update(GpuContext& gpu, const MomentumOptions& options, float* m, float* x,
                         const float* g, size_t d, float lr, float wd);

// ema(m, g, b1); ema_square(v, g, b2); u = adam_direction; apply_update(x, u, lr, wd).
// Adam, and 1-bit Adam's warmup (factors without bias correction).
void adam_update(GpuContext& gpu, const AdamFactors& f, float* m, float* v, float* x,
                 const float* g, size_t d, float lr, float wd);

// ema(m, g, beta) alone: 1-bit Adam's local momentum before the compressed allreduce.
void momentum_ema(GpuContext& gpu, float beta, float* m, const float* g, size_t d);

// u = m / (sqrt(v) + eps) with v frozen (adam_direction with c1 = c2 = 1), then
// apply_update(x, u, lr, wd): 1-bit Adam's compression-stage update.
void frozen_adam_update(GpuContext& gpu, float eps, const float* m, const float* v, float* x,
                        size_t d, float lr, float wd);

// LAMB, first half: ema(m, g, b1); ema_square(v, g, b2); u = adam_direction + wd * x.
// u may equal g.
void lamb_direction(GpuContext& gpu, const AdamFactors& f, float* m, float* v, const float* x,
                    const float* g, float* u, size_t d, float wd);

// Segments (tensors) of a flat vector cut into chunks of at most kSegmentChunk elements, each
// chunk inside one segment (device tables, built by DeviceSegments). The deterministic sum
// order of a segment: thread t of 256 adds chunk elements t, t + 256, ... in index order (double);
// the 256 thread sums combine as a halving tree (a[t] += a[t + s], s = 128, 64, ..., 1); the
// chunk sums of the segment add in chunk order starting from 0.0.
inline constexpr size_t kSegmentChunk = 4096;
inline constexpr int kSegmentThreads = 256;
struct SegmentTable {
  const uint64_t* chunk_begin = nullptr;  // first element of chunk c
  const uint64_t* chunk_end = nullptr;    // one past its last element
  const uint32_t* chunk_segment = nullptr;
  const uint32_t* first_chunk = nullptr;  // segment s has chunks [first_chunk[s], first_chunk[s+1])
  size_t chunks = 0;
  size_t segments = 0;
  double* partials = nullptr;  // workspace: 2 doubles per chunk
};

// LAMB, second half, per segment l: c_l = lamb_coefficient(||x_l||, ||u_l||, c_min, c_max)
// (1 when a norm is 0), coefficients[l] = c_l, x_l -= float(lr * c_l) * u_l.
// coefficients holds `segments` doubles, steps `segments` floats (workspace).
void lamb_apply(GpuContext& gpu, const SegmentTable& table, float* x, const float* u, float lr,
                double c_min, double c_max, double* coefficients, float* steps);

// out[l] = sum over segment l of |v_i| in double (||v_l||_1), in the order of SegmentTable.
void segment_l1(GpuContext& gpu, const SegmentTable& table, const float* v, double* out);

}  // namespace compopt::cuda
