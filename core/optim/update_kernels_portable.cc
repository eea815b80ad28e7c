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

void apply_update(float* x, const float* u, float lr, float wd, size_t n) {
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

void birder(float* m, float* bh, float* b, float* g, float beta, float eps, bool use_max,
            size_t n) {
  for (size_t j = 0; j < n; ++j) {
    m[j] = beta * m[j] + (1.0f - beta) * g[j];
    bh[j] = beta * bh[j] + (1.0f - beta) * std::fabs(g[j]);
    b[j] = use_max ? std::max(b[j], bh[j]) : bh[j];
    g[j] = m[j] / (b[j] + eps);
  }
}

double lamb_fresh_ratio(const float* m, const float* m_prev, const float* v, float* vf, float b1,
                        float b2, float eps, size_t n) {
  double r = 0;
  for (size_t j = 0; j < n; ++j) {
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

constexpr UpdateKernels kPortable = {adam_direction, ema,
                                     ema_square,     apply_update,
                                     add_scaled,     subtract_scaled,
                                     momentum_paper, momentum_pytorch,
                                     birder,         lamb_fresh_ratio,
                                     lamb_update};

}  // namespace

const UpdateKernels& portable_update_kernels() { return kPortable; }

const UpdateKernels& update_kernels() {
  if (simd_level() == SimdLevel::kAvx2) {
    if (const UpdateKernels* avx2 = avx2_update_kernels()) return *avx2;
  }
  return kPortable;
}

}  // namespace compopt
