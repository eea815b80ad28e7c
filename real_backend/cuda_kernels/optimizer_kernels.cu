// Optimizer update kernels; see optimizer_kernels.h for the exact contract. Every fp32 operation
// is an explicit round-to-nearest intrinsic in the order core/optim evaluates it.
#include <cmath>

#include "real_backend/cuda_kernels/kernel_common.cuh"
#include "real_backend/cuda_kernels/optimizer_kernels.h"

namespace compopt::cuda {
namespace detail {
namespace {

inline constexpr unsigned kMaxBlocks = 1u << 16;  // grid-stride beyond this

inline unsigned grid_for(size_t d) {
  const unsigned blocks = blocks_for(d);
  return blocks < kMaxBlocks ? blocks : kMaxBlocks;
}

__device__ __forceinline__ size_t first_index() {
  return static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ size_t grid_stride() {
  return static_cast<size_t>(gridDim.x) * blockDim.x;
}

// apply_update: x - lr * (u + wd * x), and x - lr * u without weight decay (as the CPU kernels:
// a non-finite x stays itself).
__device__ __forceinline__ float applied(float x, float u, float lr, float wd) {
  if (wd == 0.0f) return __fsub_rn(x, __fmul_rn(lr, u));
  return __fsub_rn(x, __fmul_rn(lr, __fadd_rn(u, __fmul_rn(wd, x))));
}

// ema: b * m + (1 - b) * g.
__device__ __forceinline__ float ema(float m, float g, float b, float one_minus_b) {
  return __fadd_rn(__fmul_rn(b, m), __fmul_rn(one_minus_b, g));
}

// ema_square: b * v + (1 - b) * g * g, the product evaluated left to right.
__device__ __forceinline__ float ema_square(float v, float g, float b, float one_minus_b) {
  return __fadd_rn(__fmul_rn(b, v), __fmul_rn(__fmul_rn(one_minus_b, g), g));
}

// adam_direction: (m / c1) / (sqrt(v / c2) + eps).
__device__ __forceinline__ float direction(float m, float v, float c1, float c2, float eps) {
  return __fdiv_rn(__fdiv_rn(m, c1), __fadd_rn(__fsqrt_rn(__fdiv_rn(v, c2)), eps));
}

__global__ void sgd_kernel(float* x, const float* g, size_t d, float lr, float wd) {
  for (size_t i = first_index(); i < d; i += grid_stride()) x[i] = applied(x[i], g[i], lr, wd);
}

__global__ void momentum_sgd_kernel(MomentumOptions o, float* m, float* x, const float* g, size_t d,
                                    float lr, float wd) {
  const float b = o.beta, omb = 1.0f - o.beta;
  for (size_t i = first_index(); i < d; i += grid_stride()) {
    const float gi = g[i];
    float mi, dir;
    if (o.form == MomentumForm::kPaper) {
      mi = ema(m[i], gi, b, omb);
      dir = o.nesterov ? ema(mi, gi, b, omb) : mi;
    } else {
      mi = __fadd_rn(__fmul_rn(b, m[i]), gi);
      dir = o.nesterov ? __fadd_rn(gi, __fmul_rn(b, mi)) : mi;
    }
    m[i] = mi;
    x[i] = applied(x[i], dir, lr, wd);
  }
}

__global__ void adam_kernel(AdamFactors f, float* m, float* v, float* x, const float* g, size_t d,
                            float lr, float wd) {
  for (size_t i = first_index(); i < d; i += grid_stride()) {
    const float gi = g[i];
    const float mi = ema(m[i], gi, f.beta1, f.one_minus_beta1);
    const float vi = ema_square(v[i], gi, f.beta2, f.one_minus_beta2);
    m[i] = mi;
    v[i] = vi;
    x[i] = applied(x[i], direction(mi, vi, f.c1, f.c2, f.eps), lr, wd);
  }
}

__global__ void momentum_ema_kernel(float beta, float one_minus_beta, float* m, const float* g,
                                    size_t d) {
  for (size_t i = first_index(); i < d; i += grid_stride()) {
    m[i] = ema(m[i], g[i], beta, one_minus_beta);
  }
}

__global__ void frozen_adam_kernel(float eps, const float* m, const float* v, float* x, size_t d,
                                   float lr, float wd) {
  for (size_t i = first_index(); i < d; i += grid_stride()) {
    x[i] = applied(x[i], direction(m[i], v[i], 1.0f, 1.0f, eps), lr, wd);
  }
}

__global__ void lamb_direction_kernel(AdamFactors f, float* m, float* v, const float* x,
                                      const float* g, float* u, size_t d, float wd) {
  for (size_t i = first_index(); i < d; i += grid_stride()) {
    const float gi = g[i];
    const float mi = ema(m[i], gi, f.beta1, f.one_minus_beta1);
    const float vi = ema_square(v[i], gi, f.beta2, f.one_minus_beta2);
    m[i] = mi;
    v[i] = vi;
    u[i] = __fadd_rn(direction(mi, vi, f.c1, f.c2, f.eps), __fmul_rn(wd, x[i]));
  }
}

}  // namespace
}  // namespace detail

AdamFactors adam_factors(const AdamOptions& options, int64_t t, float eps) {
  AdamFactors f;
  f.beta1 = options.beta1;
  f.beta2 = options.beta2;
  f.one_minus_beta1 = 1.0f - options.beta1;
  f.one_minus_beta2 = 1.0f - options.beta2;
  if (options.bias_correction) {
    const auto td = static_cast<double>(t);
    f.c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(options.beta1), td));
    f.c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(options.beta2), td));
  }
  f.eps = eps;
  return f;
}

void sgd_update(GpuContext& gpu, float* x, const float* g, size_t d, float lr, float wd) {
  if (d == 0) return;
  detail::sgd_kernel<<<detail::grid_for(d), detail::kThreads, 0, stream_of(gpu)>>>(x, g, d, lr, wd);
  detail::check_launch("sgd_kernel");
}

void momentum_sgd_update(GpuContext& gpu, const MomentumOptions& options, float* m, float* x,
                         const float* g, size_t d, float lr, float wd) {
  if (d == 0) return;
  detail::momentum_sgd_kernel<<<detail::grid_for(d), detail::kThreads, 0, stream_of(gpu)>>>(
      options, m, x, g, d, lr, wd);
  detail::check_launch("momentum_sgd_kernel");
}

void adam_update(GpuContext& gpu, const AdamFactors& f, float* m, float* v, float* x,
                 const float* g, size_t d, float lr, float wd) {
  if (d == 0) return;
  detail::adam_kernel<<<detail::grid_for(d), detail::kThreads, 0, stream_of(gpu)>>>(f, m, v, x, g,
                                                                                    d, lr, wd);
  detail::check_launch("adam_kernel");
}

void momentum_ema(GpuContext& gpu, float beta, float* m, const float* g, size_t d) {
  if (d == 0) return;
  detail::momentum_ema_kernel<<<detail::grid_for(d), detail::kThreads, 0, stream_of(gpu)>>>(
      beta, 1.0f - beta, m, g, d);
  detail::check_launch("momentum_ema_kernel");
}

void frozen_adam_update(GpuContext& gpu, float eps, const float* m, const float* v, float* x,
                        size_t d, float lr, float wd) {
  if (d == 0) return;
  detail::frozen_adam_kernel<<<detail::grid_for(d), detail::kThreads, 0, stream_of(gpu)>>>(
      eps, m, v, x, d, lr, wd);
  detail::check_launch("frozen_adam_kernel");
}

void lamb_direction(GpuContext& gpu, const AdamFactors& f, float* m, float* v, const float* x,
                    const float* g, float* u, size_t d, float wd) {
  if (d == 0) return;
  detail::lamb_direction_kernel<<<detail::grid_for(d), detail::kThreads, 0, stream_of(gpu)>>>(
      f, m, v, x, g, u, d, wd);
  detail::check_launch("lamb_direction_kernel");
}

}  // namespace compopt::cuda
