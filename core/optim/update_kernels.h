#pragma once
// Element-wise kernels behind the optimizer updates (internal to core/optim), one table per
// SimdLevel (core/compress/simd_level.h). Every variant performs the same IEEE single-precision
// operations in the same order as the portable loops (no FMA contraction, no reassociation), so
// all tables give bit-identical results; the level only changes speed. Pointers may alias
// exactly (out == in) but must not overlap otherwise. n is the element count of every array.

#include <cstddef>

namespace compopt {

struct UpdateKernels {
  // u = (m / c1) / (sqrt(v / c2) + eps)
  void (*adam_direction)(const float* m, const float* v, float c1, float c2, float eps, float* u,
                         size_t n);
  // m = beta*m + (1-beta)*g
  void (*ema)(float* m, const float* g, float beta, size_t n);
  // v = beta*v + ((1-beta)*g)*g
  void (*ema_square)(float* v, const float* g, float beta, size_t n);
  // x = x - lr*(u + wd*x)
  void (*apply_update)(float* x, const float* u, float lr, float wd, size_t n);
  // y = y + a*x
  void (*add_scaled)(float* y, const float* x, float a, size_t n);
  // x = x - a*u
  void (*subtract_scaled)(float* x, const float* u, float a, size_t n);
  // m = b*m + (1-b)*g; dir = nesterov ? b*m + (1-b)*g : m
  void (*momentum_paper)(float* m, const float* g, float b, bool nesterov, float* dir, size_t n);
  // m = b*m + g; dir = nesterov ? g + b*m : m
  void (*momentum_pytorch)(float* m, const float* g, float b, bool nesterov, float* dir, size_t n);
  // Birder: m = beta*m + (1-beta)*g; bh = beta*bh + (1-beta)*|g|; b = use_max ? std::max(b, bh)
  // : bh; g = m / (b + eps).
  void (*birder)(float* m, float* bh, float* b, float* g, float beta, float eps, bool use_max,
                 size_t n);
  // 1-bit LAMB's compression step (Li et al.): g = (m - b1*m_prev) / (1-b1); vf = b2*vf +
  // ((1-b2)*g)*g; returns the largest (double(sqrt(v)) + eps) / (double(sqrt(vf)) + eps) in
  // double, starting from 0 (NaN ratios are skipped, as std::max(r, NaN) keeps r).
  double (*lamb_fresh_ratio)(const float* m, const float* m_prev, const float* v, float* vf,
                             float b1, float b2, float eps, size_t n);
  // x = x - step*(m / (sqrt(v) + eps) + wd*x)
  void (*lamb_update)(float* x, const float* m, const float* v, float step, float eps, float wd,
                      size_t n);
};

const UpdateKernels& portable_update_kernels();
// nullptr when the build has no AVX2 variant (non-x86-64).
const UpdateKernels* avx2_update_kernels();
// The table for simd_level().
const UpdateKernels& update_kernels();

}  // namespace compopt
