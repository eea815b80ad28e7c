// Portable kernels of update_kernels.h: the reference loops (the scalar code the optimizers had),
// and the dispatch to the table of simd_level().
#include <algorithm>
#include <cmath>

#include "core/compress/simd_level.h"
#include "core/optim/update_kernels.h"

namespace compopt {
namespace {

void adam_direction(const float* m, const float* v, float c1, float c2, float eps, float* u,
                    size_t n) {
  for (size_t j = 0; j < n; ++j) u[j] = (m[j] / c1) / (std::sqrt(v[j] / c2) + eps);
}

void ema(float* m, const float* g, float beta, size_t n) {
  for (size_t j = 0; j < n; ++j) m[j] = beta * m[j] + (1.0f - beta) * g[j];
}

void ema_square(float* v, const float* g, float beta, size_t n) {
  for (size_t j = 0; j < n; ++j) v[j] = beta * v[j] + (1.0f - beta) * g[j] * g[j];
}

// Without weight decay the update is x -= lr*u: the same value as the general form for every
// finite x (u + 0*x == u), one multiply less per element (the AVX2 kernel branches alike).
void apply_update(float* x, const float* u, float lr, float wd, size_t n) {
  if (wd == 0.0f) {
    for (size_t j = 0; j < n; ++j) x[j] -= lr * u[j];
    return;
  }
  for (size_t j = 0; j < n; ++j) x[j] -= lr * (u[j] + wd * x[j]);
}

void add_scaled(float* y, const float* x, float a, size_t n) {
  for (size_t j = 0; j < n; ++j) y[j] += a * x[j];
}

void subtract_scaled(float* x, const float* u, float a, size_t n) {
  for (size_t j = 0; j < n; ++j) x[j] -= a * u[j];
}

void momentum_paper(float* m, const float* g, float b, bool nesterov, float* dir, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float gj = g[j];
    m[j] = b * m[j] + (1.0f - b) * gj;
    dir[j] = nesterov ? b * m[j] + (1.0f - b) * gj : m[j];
  }
}

void momentum_pytorch(float* m, const float* g, float b, bool nesterov, float* dir, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float gj = g[j];
    m[j] = b * m[j] + gj;
    dir[j] = nesterov ? gj + b * m[j] : m[j];
  }
}

void birder(float* m, float* bh, float* b, const float* g, float* q, float beta, float eps,
            bool use_max, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float gj = g[j];
    m[j] = beta * m[j] + (1.0f - beta) * gj;
    bh[j] = beta * bh[j] + (1.0f - beta) * std::fabs(gj);
    b[j] = use_max ? std::max(b[j], bh[j]) : bh[j];
    q[j] = m[j] / (b[j] + eps);
  }
}

double lamb_fresh_ratio(float* m, const float* m_prev, const float* v, float* vf, float b1,
                        float b2, float eps, float k, size_t n) {
  double r = 0;
  for (size_t j = 0; j < n; ++j) {
    m[j] = m[j] / k;
    const float g = (m[j] - b1 * m_prev[j]) / (1.0f - b1);
    vf[j] = b2 * vf[j] + (1.0f - b2) * g * g;
    r = std::max(r, (static_cast<double>(std::sqrt(v[j])) + eps) /
                        (static_cast<double>(std::sqrt(vf[j])) + eps));
  }
  return r;
}

void lamb_update(float* x, const float* m, const float* v, float step, float eps, float wd,
                 size_t n) {
  for (size_t j = 0; j < n; ++j) x[j] -= step * (m[j] / (std::sqrt(v[j]) + eps) + wd * x[j]);
}

// The new moments of element j (ema, ema_square) and its Adam direction.
inline float adam_moments(float* m, float* v, const float* g, const AdamScalars& s, size_t j) {
  const float gj = g[j];
  m[j] = s.beta1 * m[j] + (1.0f - s.beta1) * gj;
  v[j] = s.beta2 * v[j] + (1.0f - s.beta2) * gj * gj;
  return (m[j] / s.c1) / (std::sqrt(v[j] / s.c2) + s.eps);
}

void adam_step(float* x, float* m, float* v, const float* g, const AdamScalars& s, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float u = adam_moments(m, v, g, s, j);
    x[j] -= s.lr * (u + s.wd * x[j]);
  }
}

void adam_apply(float* x, const float* m, const float* v, const AdamScalars& s, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float u = (m[j] / s.c1) / (std::sqrt(v[j] / s.c2) + s.eps);
    x[j] -= s.lr * (u + s.wd * x[j]);
  }
}

void lamb_direction(const float* x, float* m, float* v, const float* g, float* u,
                    const AdamScalars& s, double* squares, size_t n) {
  double sx = squares[0], su = squares[1];
  for (size_t j = 0; j < n; ++j) {
    const float uj = adam_moments(m, v, g, s, j) + s.wd * x[j];
    u[j] = uj;
    sx += static_cast<double>(x[j]) * static_cast<double>(x[j]);
    su += static_cast<double>(uj) * static_cast<double>(uj);
  }
  squares[0] = sx;
  squares[1] = su;
}

void lamb_scaled_momentum(float* m, float* m_prev, const float* g, float b1, float k, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    m_prev[j] = m[j];
    m[j] = (b1 * m[j] + (1.0f - b1) * g[j]) * k;
  }
}

void momentum_paper_step(float* x, float* m, const float* g, float b, bool nesterov, float lr,
                         float wd, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float gj = g[j];
    m[j] = b * m[j] + (1.0f - b) * gj;
    const float dir = nesterov ? b * m[j] + (1.0f - b) * gj : m[j];
    x[j] -= lr * (dir + wd * x[j]);
  }
}

void momentum_pytorch_step(float* x, float* m, const float* g, float b, bool nesterov, float lr,
                           float wd, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    const float gj = g[j];
    m[j] = b * m[j] + gj;
    const float dir = nesterov ? gj + b * m[j] : m[j];
    x[j] -= lr * (dir + wd * x[j]);
  }
}

constexpr UpdateKernels kPortable = {adam_direction,
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
                                     momentum_paper_step,
                                     momentum_pytorch_step};

}  // namespace

const UpdateKernels& portable_update_kernels() { return kPortable; }

const UpdateKernels& update_kernels() {
  if (simd_level() == SimdLevel::kAvx2) {
    if (const UpdateKernels* avx2 = avx2_update_kernels()) return *avx2;
  }
  return kPortable;
}

}  // namespace compopt
