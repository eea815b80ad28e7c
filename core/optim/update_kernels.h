#pragma once
// Element-wise kernels behind the optimizer updates (internal to core/optim), one table per
// SimdLevel (core/compress/simd_level.h). Every variant performs the same IEEE single-precision
// operations in the same order as the portable loops (no FMA contraction, no reassociation), so
// all tables give bit-identical results; the level only changes speed. Pointers may alias
// exactly (out == in) but must not overlap otherwise. n is the element count of every array.

#include <cstddef>

namespace compopt {

// Scalars of the fused Adam-family kernels: moment rates, bias corrections (1 when off), eps,
// rate and weight decay.
struct AdamScalars {
  float beta1 = 0.9f, beta2 = 0.999f;
  float c1 = 1.0f, c2 = 1.0f;
  float eps = 1e-8f, lr = 0.0f, wd = 0.0f;
};

// The fused kernels below run the loops named in their comments in one pass: per element the
// same operations in the same order, so they give the floats of those loops run one after the
// other, with a fraction of the memory traffic.
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
  // : bh; q = m / (b + eps). q may alias g exactly.
  void (*birder)(float* m, float* bh, float* b, const float* g, float* q, float beta, float eps,
                 bool use_max, size_t n);
  // 1-bit LAMB's compression step (Li et al.), after the allreduce of the scaled momentum:
  // m = m / k; g = (m - b1*m_prev) / (1-b1); vf = b2*vf + ((1-b2)*g)*g; returns the largest
  // (double(sqrt(v)) + eps) / (double(sqrt(vf)) + eps) in double, starting from 0 (NaN ratios
  // are skipped, as std::max(r, NaN) keeps r).
  double (*lamb_fresh_ratio)(float* m, const float* m_prev, const float* v, float* vf, float b1,
                             float b2, float eps, float k, size_t n);
  // x = x - step*(m / (sqrt(v) + eps) + wd*x)
  void (*lamb_update)(float* x, const float* m, const float* v, float step, float eps, float wd,
                      size_t n);
  // Adam's step after the allreduce: ema(m, g, beta1); ema_square(v, g, beta2);
  // adam_direction(m, v, c1, c2, eps, u); apply_update(x, u, lr, wd), u never stored.
  void (*adam_step)(float* x, float* m, float* v, const float* g, const AdamScalars& s, size_t n);
  // adam_direction(m, v, c1, c2, eps, u); apply_update(x, u, lr, wd), u never stored (1-bit
  // Adam after the freeze).
  void (*adam_apply)(float* x, const float* m, const float* v, const AdamScalars& s, size_t n);
  // LAMB's direction of one tensor: ema(m, g, beta1); ema_square(v, g, beta2);
  // adam_direction(m, v, c1, c2, eps, u); add_scaled(u, x, wd); and adds the squares of x and
  // of the new u in double, in index order, to squares[0] and squares[1] (as l2_norm adds them
  // when both start at 0). u may alias g exactly.
  void (*lamb_direction)(const float* x, float* m, float* v, const float* g, float* u,
                         const AdamScalars& s, double* squares, size_t n);
  // 1-bit LAMB's momentum before its compressed allreduce, one tensor: m_prev = m;
  // ema(m, g, b1); m = m * k.
  void (*lamb_scaled_momentum)(float* m, float* m_prev, const float* g, float b1, float k,
                               size_t n);
  // momentum_paper(m, g, b, nesterov, dir); apply_update(x, dir, lr, wd), dir never stored.
  void (*momentum_paper_step)(float* x, float* m, const float* g, float b, bool nesterov, float lr,
                              float wd, size_t n);
  // momentum_pytorch(m, g, b, nesterov, dir); apply_update(x, dir, lr, wd), dir never stored.
  void (*momentum_pytorch_step)(float* x, float* m, const float* g, float b, bool nesterov,
                                float lr, float wd, size_t n);
};

const UpdateKernels& portable_update_kernels();
// nullptr when the build has no AVX2 variant (non-x86-64).
const UpdateKernels* avx2_update_kernels();
// The table for simd_level().
const UpdateKernels& update_kernels();

}  // namespace compopt
