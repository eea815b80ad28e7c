// AVX2 kernels of update_kernels.h: 8 lanes per instruction, the same operations in the same
// order as the portable loops, which also run the tails (n % 8 elements). Compiled for "avx2"
// only, never "fma", so no multiply-add can be fused; _mm256_sqrt_ps and _mm256_div_ps are
// correctly rounded like sqrtf and '/'.
#include "core/optim/update_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>

#define COMPOPT_AVX2 __attribute__((target("avx2")))

namespace compopt {
namespace {

const UpdateKernels& tail() { return portable_update_kernels(); }

// The tail [full, n) of adam_direction.
void adam_tail(const float* m, const float* v, float c1, float c2, float eps, float* u, size_t n,
               size_t full) {
  tail().adam_direction(m + full, v + full, c1, c2, eps, u + full, n - full);
}

COMPOPT_AVX2 void adam_direction(const float* m, const float* v, float c1, float c2, float eps,
                                 float* u, size_t n) {
  const __m256 vc1 = _mm256_set1_ps(c1), vc2 = _mm256_set1_ps(c2), veps = _mm256_set1_ps(eps);
  const size_t full = n / 8 * 8;
  if (c1 == 1.0f && c2 == 1.0f) {  // x / 1 == x exactly: skip the two divisions
    for (size_t j = 0; j < full; j += 8) {
      const __m256 root = _mm256_sqrt_ps(_mm256_loadu_ps(v + j));
      _mm256_storeu_ps(u + j, _mm256_div_ps(_mm256_loadu_ps(m + j), _mm256_add_ps(root, veps)));
    }
    adam_tail(m, v, c1, c2, eps, u, n, full);
    return;
  }
  for (size_t j = 0; j < full; j += 8) {
    const __m256 num = _mm256_div_ps(_mm256_loadu_ps(m + j), vc1);
    const __m256 root = _mm256_sqrt_ps(_mm256_div_ps(_mm256_loadu_ps(v + j), vc2));
    _mm256_storeu_ps(u + j, _mm256_div_ps(num, _mm256_add_ps(root, veps)));
  }
  adam_tail(m, v, c1, c2, eps, u, n, full);
}

// beta*a + (1-beta)*g, both products rounded before the sum.
COMPOPT_AVX2 inline __m256 blend(__m256 beta, __m256 rest, __m256 a, __m256 g) {
  return _mm256_add_ps(_mm256_mul_ps(beta, a), _mm256_mul_ps(rest, g));
}

COMPOPT_AVX2 void ema(float* m, const float* g, float beta, size_t n) {
  const __m256 vb = _mm256_set1_ps(beta), vr = _mm256_set1_ps(1.0f - beta);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    _mm256_storeu_ps(m + j, blend(vb, vr, _mm256_loadu_ps(m + j), _mm256_loadu_ps(g + j)));
  }
  tail().ema(m + full, g + full, beta, n - full);
}

COMPOPT_AVX2 void ema_square(float* v, const float* g, float beta, size_t n) {
  const __m256 vb = _mm256_set1_ps(beta), vr = _mm256_set1_ps(1.0f - beta);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 gj = _mm256_loadu_ps(g + j);
    const __m256 sq = _mm256_mul_ps(_mm256_mul_ps(vr, gj), gj);
    _mm256_storeu_ps(v + j, _mm256_add_ps(_mm256_mul_ps(vb, _mm256_loadu_ps(v + j)), sq));
  }
  tail().ema_square(v + full, g + full, beta, n - full);
}

COMPOPT_AVX2 void apply_update(float* x, const float* u, float lr, float wd, size_t n) {
  const __m256 vlr = _mm256_set1_ps(lr), vwd = _mm256_set1_ps(wd);
  const size_t full = n / 8 * 8;
  if (wd == 0.0f) {  // x -= lr*u, as the portable kernel
    for (size_t j = 0; j < full; j += 8) {
      const __m256 step = _mm256_mul_ps(vlr, _mm256_loadu_ps(u + j));
      _mm256_storeu_ps(x + j, _mm256_sub_ps(_mm256_loadu_ps(x + j), step));
    }
    tail().apply_update(x + full, u + full, lr, wd, n - full);
    return;
  }
  for (size_t j = 0; j < full; j += 8) {
    const __m256 xj = _mm256_loadu_ps(x + j);
    const __m256 step = _mm256_add_ps(_mm256_loadu_ps(u + j), _mm256_mul_ps(vwd, xj));
    _mm256_storeu_ps(x + j, _mm256_sub_ps(xj, _mm256_mul_ps(vlr, step)));
  }
  tail().apply_update(x + full, u + full, lr, wd, n - full);
}

COMPOPT_AVX2 void add_scaled(float* y, const float* x, float a, size_t n) {
  const __m256 va = _mm256_set1_ps(a);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 ax = _mm256_mul_ps(va, _mm256_loadu_ps(x + j));
    _mm256_storeu_ps(y + j, _mm256_add_ps(_mm256_loadu_ps(y + j), ax));
  }
  tail().add_scaled(y + full, x + full, a, n - full);
}

COMPOPT_AVX2 void subtract_scaled(float* x, const float* u, float a, size_t n) {
  const __m256 va = _mm256_set1_ps(a);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 au = _mm256_mul_ps(va, _mm256_loadu_ps(u + j));
    _mm256_storeu_ps(x + j, _mm256_sub_ps(_mm256_loadu_ps(x + j), au));
  }
  tail().subtract_scaled(x + full, u + full, a, n - full);
}

COMPOPT_AVX2 void momentum_paper(float* m, const float* g, float b, bool nesterov, float* dir,
                                 size_t n) {
  const __m256 vb = _mm256_set1_ps(b), vr = _mm256_set1_ps(1.0f - b);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 gj = _mm256_loadu_ps(g + j);
    const __m256 mj = blend(vb, vr, _mm256_loadu_ps(m + j), gj);
    _mm256_storeu_ps(m + j, mj);
    _mm256_storeu_ps(dir + j, nesterov ? blend(vb, vr, mj, gj) : mj);
  }
  tail().momentum_paper(m + full, g + full, b, nesterov, dir + full, n - full);
}

COMPOPT_AVX2 void momentum_pytorch(float* m, const float* g, float b, bool nesterov, float* dir,
                                   size_t n) {
  const __m256 vb = _mm256_set1_ps(b);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 gj = _mm256_loadu_ps(g + j);
    const __m256 mj = _mm256_add_ps(_mm256_mul_ps(vb, _mm256_loadu_ps(m + j)), gj);
    _mm256_storeu_ps(m + j, mj);
    _mm256_storeu_ps(dir + j, nesterov ? _mm256_add_ps(gj, _mm256_mul_ps(vb, mj)) : mj);
  }
  tail().momentum_pytorch(m + full, g + full, b, nesterov, dir + full, n - full);
}

COMPOPT_AVX2 void birder(float* m, float* bh, float* b, const float* g, float* q, float beta,
                         float eps, bool use_max, size_t n) {
  const __m256 vb = _mm256_set1_ps(beta), vr = _mm256_set1_ps(1.0f - beta);
  const __m256 veps = _mm256_set1_ps(eps);
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 gj = _mm256_loadu_ps(g + j);
    const __m256 mj = blend(vb, vr, _mm256_loadu_ps(m + j), gj);
    const __m256 bhj = blend(vb, vr, _mm256_loadu_ps(bh + j), _mm256_and_ps(gj, abs_mask));
    // std::max(b, bh) = (b < bh) ? bh : b = maxps(bh, b), which returns its second operand
    // unless the first is greater (so NaNs and ties keep b, as std::max does).
    const __m256 bj = use_max ? _mm256_max_ps(bhj, _mm256_loadu_ps(b + j)) : bhj;
    _mm256_storeu_ps(m + j, mj);
    _mm256_storeu_ps(bh + j, bhj);
    _mm256_storeu_ps(b + j, bj);
    _mm256_storeu_ps(q + j, _mm256_div_ps(mj, _mm256_add_ps(bj, veps)));
  }
  tail().birder(m + full, bh + full, b + full, g + full, q + full, beta, eps, use_max, n - full);
}

// (double(sqrt(v)) + eps) / (double(sqrt(vf)) + eps) for 4 lanes of float roots.
COMPOPT_AVX2 inline __m256d lamb_ratio4(__m128 root_v, __m128 root_vf, __m256d eps) {
  return _mm256_div_pd(_mm256_add_pd(_mm256_cvtps_pd(root_v), eps),
                       _mm256_add_pd(_mm256_cvtps_pd(root_vf), eps));
}

COMPOPT_AVX2 double lamb_fresh_ratio(float* m, const float* m_prev, const float* v, float* vf,
                                     float b1, float b2, float eps, float k, size_t n) {
  const __m256 vk = _mm256_set1_ps(k);
  const __m256 vb1 = _mm256_set1_ps(b1), vd1 = _mm256_set1_ps(1.0f - b1);
  const __m256 vb2 = _mm256_set1_ps(b2), vd2 = _mm256_set1_ps(1.0f - b2);
  const __m256d veps = _mm256_set1_pd(eps);
  // std::max(r, q) = (r < q) ? q : r = maxpd(q, r): a NaN q keeps r. A maximum is exact, so the
  // two lane sets and the tail combine in any order.
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 mj = _mm256_div_ps(_mm256_loadu_ps(m + j), vk);
    _mm256_storeu_ps(m + j, mj);
    const __m256 g =
        _mm256_div_ps(_mm256_sub_ps(mj, _mm256_mul_ps(vb1, _mm256_loadu_ps(m_prev + j))), vd1);
    const __m256 vfj = _mm256_add_ps(_mm256_mul_ps(vb2, _mm256_loadu_ps(vf + j)),
                                     _mm256_mul_ps(_mm256_mul_ps(vd2, g), g));
    _mm256_storeu_ps(vf + j, vfj);
    const __m256 rv = _mm256_sqrt_ps(_mm256_loadu_ps(v + j)), rf = _mm256_sqrt_ps(vfj);
    lo = _mm256_max_pd(lamb_ratio4(_mm256_castps256_ps128(rv), _mm256_castps256_ps128(rf), veps),
                       lo);
    hi = _mm256_max_pd(
        lamb_ratio4(_mm256_extractf128_ps(rv, 1), _mm256_extractf128_ps(rf, 1), veps), hi);
  }
  alignas(32) double lanes[8];
  _mm256_store_pd(lanes, lo);
  _mm256_store_pd(lanes + 4, hi);
  double r = tail().lamb_fresh_ratio(m + full, m_prev + full, v + full, vf + full, b1, b2, eps, k,
                                     n - full);
  for (const double lane : lanes) r = std::max(r, lane);
  return r;
}

COMPOPT_AVX2 void lamb_scaled_momentum(float* m, float* m_prev, const float* g, float b1, float k,
                                       size_t n) {
  const __m256 vb = _mm256_set1_ps(b1), vr = _mm256_set1_ps(1.0f - b1), vk = _mm256_set1_ps(k);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 mj = _mm256_loadu_ps(m + j);
    _mm256_storeu_ps(m_prev + j, mj);
    _mm256_storeu_ps(m + j, _mm256_mul_ps(blend(vb, vr, mj, _mm256_loadu_ps(g + j)), vk));
  }
  tail().lamb_scaled_momentum(m + full, m_prev + full, g + full, b1, k, n - full);
}

COMPOPT_AVX2 void lamb_update(float* x, const float* m, const float* v, float step, float eps,
                              float wd, size_t n) {
  const __m256 vs = _mm256_set1_ps(step), veps = _mm256_set1_ps(eps), vwd = _mm256_set1_ps(wd);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 xj = _mm256_loadu_ps(x + j);
    const __m256 dir = _mm256_div_ps(_mm256_loadu_ps(m + j),
                                     _mm256_add_ps(_mm256_sqrt_ps(_mm256_loadu_ps(v + j)), veps));
    _mm256_storeu_ps(
        x + j, _mm256_sub_ps(xj, _mm256_mul_ps(vs, _mm256_add_ps(dir, _mm256_mul_ps(vwd, xj)))));
  }
  tail().lamb_update(x + full, m + full, v + full, step, eps, wd, n - full);
}

// AdamScalars in lanes; `unit` when both bias corrections are 1 (x / 1 == x exactly, so the two
// divisions are skipped as adam_direction skips them).
struct AdamLanes {
  __m256 b1, r1, b2, r2, c1, c2, eps, lr, wd;
  bool unit;
};

COMPOPT_AVX2 inline AdamLanes lanes_of(const AdamScalars& s) {
  return {_mm256_set1_ps(s.beta1),        _mm256_set1_ps(1.0f - s.beta1), _mm256_set1_ps(s.beta2),
          _mm256_set1_ps(1.0f - s.beta2), _mm256_set1_ps(s.c1),           _mm256_set1_ps(s.c2),
          _mm256_set1_ps(s.eps),          _mm256_set1_ps(s.lr),           _mm256_set1_ps(s.wd),
          s.c1 == 1.0f && s.c2 == 1.0f};
}

// (m/c1) / (sqrt(v/c2) + eps) of 8 lanes.
COMPOPT_AVX2 inline __m256 direction8(__m256 m, __m256 v, const AdamLanes& a) {
  if (a.unit) return _mm256_div_ps(m, _mm256_add_ps(_mm256_sqrt_ps(v), a.eps));
  const __m256 root = _mm256_sqrt_ps(_mm256_div_ps(v, a.c2));
  return _mm256_div_ps(_mm256_div_ps(m, a.c1), _mm256_add_ps(root, a.eps));
}

// ema and ema_square of lanes [j, j+8), stored; returns their Adam direction.
COMPOPT_AVX2 inline __m256 moments8(float* m, float* v, const float* g, const AdamLanes& a,
                                    size_t j) {
  const __m256 gj = _mm256_loadu_ps(g + j);
  const __m256 mj = blend(a.b1, a.r1, _mm256_loadu_ps(m + j), gj);
  const __m256 sq = _mm256_mul_ps(_mm256_mul_ps(a.r2, gj), gj);
  const __m256 vj = _mm256_add_ps(_mm256_mul_ps(a.b2, _mm256_loadu_ps(v + j)), sq);
  _mm256_storeu_ps(m + j, mj);
  _mm256_storeu_ps(v + j, vj);
  return direction8(mj, vj, a);
}

// x - lr*(u + wd*x) of lanes [j, j+8), stored.
COMPOPT_AVX2 inline void apply8(float* x, __m256 u, __m256 lr, __m256 wd, size_t j) {
  const __m256 xj = _mm256_loadu_ps(x + j);
  _mm256_storeu_ps(x + j,
                   _mm256_sub_ps(xj, _mm256_mul_ps(lr, _mm256_add_ps(u, _mm256_mul_ps(wd, xj)))));
}

COMPOPT_AVX2 void adam_step(float* x, float* m, float* v, const float* g, const AdamScalars& s,
                            size_t n) {
  const AdamLanes a = lanes_of(s);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) apply8(x, moments8(m, v, g, a, j), a.lr, a.wd, j);
  tail().adam_step(x + full, m + full, v + full, g + full, s, n - full);
}

COMPOPT_AVX2 void adam_apply(float* x, const float* m, const float* v, const AdamScalars& s,
                             size_t n) {
  const AdamLanes a = lanes_of(s);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    apply8(x, direction8(_mm256_loadu_ps(m + j), _mm256_loadu_ps(v + j), a), a.lr, a.wd, j);
  }
  tail().adam_apply(x + full, m + full, v + full, s, n - full);
}

COMPOPT_AVX2 void lamb_direction(const float* x, float* m, float* v, const float* g, float* u,
                                 const AdamScalars& s, double* squares, size_t n) {
  const AdamLanes a = lanes_of(s);
  const size_t full = n / 8 * 8;
  double sx = squares[0], su = squares[1];
  for (size_t j = 0; j < full; j += 8) {
    const __m256 dir = moments8(m, v, g, a, j);
    _mm256_storeu_ps(u + j, _mm256_add_ps(dir, _mm256_mul_ps(a.wd, _mm256_loadu_ps(x + j))));
    // The two sums stay scalar double chains in index order, as l2_norm's.
    for (size_t k = j; k < j + 8; ++k) {
      sx += static_cast<double>(x[k]) * static_cast<double>(x[k]);
      su += static_cast<double>(u[k]) * static_cast<double>(u[k]);
    }
  }
  squares[0] = sx;
  squares[1] = su;
  tail().lamb_direction(x + full, m + full, v + full, g + full, u + full, s, squares, n - full);
}

// The momentum step of both forms: paper (m = b*m + (1-b)*g) or PyTorch (m = b*m + g).
template <bool kPaper>
COMPOPT_AVX2 void momentum_step(float* x, float* m, const float* g, float b, bool nesterov,
                                float lr, float wd, size_t n) {
  const __m256 vb = _mm256_set1_ps(b), vr = _mm256_set1_ps(1.0f - b);
  const __m256 vlr = _mm256_set1_ps(lr), vwd = _mm256_set1_ps(wd);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256 gj = _mm256_loadu_ps(g + j);
    __m256 mj, dir;
    if constexpr (kPaper) {
      mj = blend(vb, vr, _mm256_loadu_ps(m + j), gj);
      dir = nesterov ? blend(vb, vr, mj, gj) : mj;
    } else {
      mj = _mm256_add_ps(_mm256_mul_ps(vb, _mm256_loadu_ps(m + j)), gj);
      dir = nesterov ? _mm256_add_ps(gj, _mm256_mul_ps(vb, mj)) : mj;
    }
    _mm256_storeu_ps(m + j, mj);
    apply8(x, dir, vlr, vwd, j);
  }
  const UpdateKernels& rest = tail();
  (kPaper ? rest.momentum_paper_step : rest.momentum_pytorch_step)(x + full, m + full, g + full, b,
                                                                   nesterov, lr, wd, n - full);
}

constexpr UpdateKernels kAvx2 = {adam_direction,
                                 ema,
                                 ema_square,
                                 apply_update,
                                 add_scaled,
                                 subtract_scaled,
                                 momentum_paper,
                                 momentum_pytorch,
                                 birder,
                                 lamb_fresh_ratio,
                                 lamb_update,
                                 adam_step,
                                 adam_apply,
                                 lamb_direction,
                                 lamb_scaled_momentum,
                                 momentum_step<true>,
                                 momentum_step<false>};

}  // namespace

const UpdateKernels* avx2_update_kernels() { return &kAvx2; }

}  // namespace compopt

#else  // !__x86_64__

namespace compopt {
const UpdateKernels* avx2_update_kernels() { return nullptr; }
}  // namespace compopt

#endif
