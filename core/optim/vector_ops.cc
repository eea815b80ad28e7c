#include "core/optim/vector_ops.h"

#include <cmath>
#include <cstddef>

#include "core/optim/update_kernels.h"

namespace compopt {

double l1_norm(std::span<const float> x) {
  double s = 0;
  for (float v : x) s += std::fabs(static_cast<double>(v));
  return s;
}

double l2_norm(std::span<const float> x) {
  double s = 0;
  for (float v : x) s += static_cast<double>(v) * static_cast<double>(v);
  return std::sqrt(s);
}

L1L2Norms l1_and_l2_norms(std::span<const float> x) {
  double s1 = 0, s2 = 0;
  for (float v : x) {
    s1 += std::fabs(static_cast<double>(v));
    s2 += static_cast<double>(v) * static_cast<double>(v);
  }
  return {s1, std::sqrt(s2)};
}

void apply_update(std::span<float> x, std::span<const float> u, float lr, float weight_decay) {
  update_kernels().apply_update(x.data(), u.data(), lr, weight_decay, x.size());
}

void ema(std::span<float> m, std::span<const float> g, float beta) {
  update_kernels().ema(m.data(), g.data(), beta, m.size());
}

void ema_square(std::span<float> v, std::span<const float> g, float beta) {
  update_kernels().ema_square(v.data(), g.data(), beta, v.size());
}

void add_scaled(std::span<float> y, std::span<const float> x, float a) {
  update_kernels().add_scaled(y.data(), x.data(), a, y.size());
}

void subtract_scaled(std::span<float> x, std::span<const float> u, float a) {
  update_kernels().subtract_scaled(x.data(), u.data(), a, x.size());
}

}  // namespace compopt
