#include "core/optim/vector_ops.h"

#include <cmath>
#include <cstddef>

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

void apply_update(std::span<float> x, std::span<const float> u, float lr, float weight_decay) {
  for (size_t j = 0; j < x.size(); ++j) x[j] -= lr * (u[j] + weight_decay * x[j]);
}

void ema(std::span<float> m, std::span<const float> g, float beta) {
  for (size_t j = 0; j < m.size(); ++j) m[j] = beta * m[j] + (1.0f - beta) * g[j];
}

void ema_square(std::span<float> v, std::span<const float> g, float beta) {
  for (size_t j = 0; j < v.size(); ++j) v[j] = beta * v[j] + (1.0f - beta) * g[j] * g[j];
}

}  // namespace compopt
