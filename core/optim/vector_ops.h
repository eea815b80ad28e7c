#pragma once
// Small element-wise kernels shared by the optimizers. Norms accumulate in
// double in index order, so they are deterministic and identical on every rank
// given identical inputs. The element-wise updates run the kernels of update_kernels.h (AVX2
// when the CPU has it), bit-identical to the plain loops their comments show. Optimizers whose
// update has several of these steps run a fused kernel instead (adam_step, lamb_direction,
// momentum_step, ...); the single steps here are also what the tests and benchmarks compare
// those fused kernels and the GPU kernels with.

#include <span>

namespace compopt {

double l1_norm(std::span<const float> x);
double l2_norm(std::span<const float> x);

struct L1L2Norms {
  double l1 = 0, l2 = 0;
};
// {l1_norm(x), l2_norm(x)} in one pass (the two chains run side by side; the same doubles).
L1L2Norms l1_and_l2_norms(std::span<const float> x);

// x -= lr * (u + weight_decay * x)
void apply_update(std::span<float> x, std::span<const float> u, float lr, float weight_decay);

// m = beta*m + (1-beta)*g
void ema(std::span<float> m, std::span<const float> g, float beta);
// v = beta*v + (1-beta)*g*g
void ema_square(std::span<float> v, std::span<const float> g, float beta);
// y += a*x
void add_scaled(std::span<float> y, std::span<const float> x, float a);
// x -= a*u
void subtract_scaled(std::span<float> x, std::span<const float> u, float a);

}  // namespace compopt
