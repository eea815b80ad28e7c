// Optimizer updates per element at 2^16, 269,322 (the Fashion-MNIST MLP) and 2^20 fp32
// parameters. BM_adam_direction is u = (m/c1)/(sqrt(v/c2)+eps); BM_adam_update is a whole Adam
// update after the allreduce (ema of m, ema of v, direction, x -= lr*(u + wd*x)) by the fused
// kernel; BM_adam_apply 1-bit Adam's update after the freeze (direction and x update);
// BM_lamb_update LAMB's update of one tensor (moments, u = direction + wd*x, ||x|| and ||u||,
// x -= step*u); BM_momentum_update momentum SGD's (m, then x); BM_variance_norms ||v||_1 and
// ||v||_2 of the per-step metrics; BM_birder_update Birder's state update. Each is compared
// with BM_memcpy of the fp32 parameter vector (4 bytes per element); a twin BM_<op>_scalar runs
// the plain loops the optimizers had before core/optim/update_kernels.h, and a twin
// BM_<op>_baseline the separate passes (one kernel per loop) they had before the fused kernels,
// so the ratio table prints the speedup over each.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/compress/simd_level.h"
#include "core/optim/adam.h"
#include "core/optim/birder_state.h"
#include "core/optim/lamb.h"
#include "core/optim/momentum.h"
#include "core/optim/update_kernels.h"
#include "core/optim/vector_ops.h"
#include "tests/bench/memcpy_baseline.h"
#include "tests/bench/ratio_reporter.h"

namespace compopt::bench {
namespace {

constexpr int64_t kSizes[] = {int64_t{1} << 16, 269322, int64_t{1} << 20};

[[maybe_unused]] const bool kBaselines = [] {
  for (const int64_t k : kSizes) ensure_memcpy_baseline(4 * k);
  return true;
}();

struct Vectors {
  std::vector<float> x, g, m, v, u;
  explicit Vectors(size_t n) : x(n), g(n), m(n), v(n), u(n) {
    for (size_t i = 0; i < n; ++i) {
      const auto f = static_cast<float>(i % 1009);
      x[i] = std::sin(f) * 0.1f;
      g[i] = std::cos(f) * 1e-3f;
      m[i] = g[i] * 0.5f;
      v[i] = g[i] * g[i] + 1e-9f;
    }
  }
};

template <class Op>
void run(benchmark::State& state, Op op) {
  for (auto _ : state) {
    op();
    benchmark::ClobberMemory();
  }
  set_input_bytes(state, 4 * state.range(0));
}

// The loops of the optimizers before the kernels (the portable table holds the same code).
namespace scalar {

void adam_direction(const float* m, const float* v, float c1, float c2, float eps, float* u,
                    size_t n) {
  for (size_t j = 0; j < n; ++j) u[j] = (m[j] / c1) / (std::sqrt(v[j] / c2) + eps);
}

void adam_update(Vectors& s, float lr, float wd) {
  const size_t n = s.x.size();
  for (size_t j = 0; j < n; ++j) s.m[j] = 0.9f * s.m[j] + (1.0f - 0.9f) * s.g[j];
  for (size_t j = 0; j < n; ++j) s.v[j] = 0.999f * s.v[j] + (1.0f - 0.999f) * s.g[j] * s.g[j];
  adam_direction(s.m.data(), s.v.data(), 1.0f, 1.0f, 1e-8f, s.u.data(), n);
  for (size_t j = 0; j < n; ++j) s.x[j] -= lr * (s.u[j] + wd * s.x[j]);
}

void birder(Vectors& s, float beta, float eps) {
  std::copy(s.g.begin(), s.g.end(), s.x.begin());
  for (size_t j = 0; j < s.x.size(); ++j) {
    s.m[j] = beta * s.m[j] + (1.0f - beta) * s.g[j];
    s.v[j] = beta * s.v[j] + (1.0f - beta) * std::fabs(s.g[j]);
    s.u[j] = std::max(s.u[j], s.v[j]);
    s.x[j] = s.m[j] / (s.u[j] + eps);
  }
}

}  // namespace scalar

void BM_adam_direction(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] { adam_direction({}, 1, 1e-8f, s.m, s.v, s.u); });
}

void BM_adam_direction_scalar(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state,
      [&] { scalar::adam_direction(s.m.data(), s.v.data(), 1, 1, 1e-8f, s.u.data(), s.u.size()); });
}

void BM_adam_update(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  const AdamScalars a = adam_scalars({}, 1, 1e-8f, 1e-3f, 0.01f);
  run(state, [&] {
    update_kernels().adam_step(s.x.data(), s.m.data(), s.v.data(), s.g.data(), a, s.x.size());
  });
}

void BM_adam_update_scalar(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] { scalar::adam_update(s, 1e-3f, 0.01f); });
}

void BM_adam_update_baseline(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] {
    ema(s.m, s.g, 0.9f);
    ema_square(s.v, s.g, 0.999f);
    adam_direction({}, 1, 1e-8f, s.m, s.v, s.u);
    apply_update(s.x, s.u, 1e-3f, 0.01f);
  });
}

void BM_adam_apply(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  const AdamScalars a = adam_scalars({}, 1, 1e-8f, 1e-3f, 0.01f);
  run(state,
      [&] { update_kernels().adam_apply(s.x.data(), s.m.data(), s.v.data(), a, s.x.size()); });
}

void BM_adam_apply_baseline(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] {
    adam_direction({}, 1, 1e-8f, s.m, s.v, s.u);
    apply_update(s.x, s.u, 1e-3f, 0.01f);
  });
}

void BM_lamb_update(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  const ParamLayout layout = ParamLayout::from_sizes({{"w", s.x.size()}});
  const AdamScalars a = adam_scalars({}, 1, 1e-8f, 1e-3f, 0.01f);
  std::vector<double> coefficients(1);
  run(state, [&] {
    std::copy(s.g.begin(), s.g.end(), s.u.begin());
    lamb_step(layout, a, 0.01, 10.0, s.x, s.m, s.v, s.u, s.u, coefficients);
  });
}

void BM_lamb_update_baseline(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] {
    std::copy(s.g.begin(), s.g.end(), s.u.begin());
    ema(s.m, s.u, 0.9f);
    ema_square(s.v, s.u, 0.999f);
    adam_direction({}, 1, 1e-8f, s.m, s.v, s.u);
    add_scaled(s.u, s.x, 0.01f);
    const double c = lamb_coefficient(l2_norm(s.x), l2_norm(s.u), 0.01, 10.0);
    subtract_scaled(s.x, s.u, static_cast<float>(1e-3f * c));
  });
}

void BM_momentum_update(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] { momentum_step({}, s.x, s.m, s.g, 1e-2f, 0.01f); });
}

void BM_momentum_update_baseline(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] {
    std::copy(s.g.begin(), s.g.end(), s.u.begin());
    momentum_update({}, s.m, s.u, s.u);
    apply_update(s.x, s.u, 1e-2f, 0.01f);
  });
}

void BM_variance_norms(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] { benchmark::DoNotOptimize(l1_and_l2_norms(s.v)); });
}

void BM_variance_norms_baseline(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] {
    benchmark::DoNotOptimize(l1_norm(s.v));
    benchmark::DoNotOptimize(l2_norm(s.v));
  });
}

void BM_birder_update(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  Vectors s(n);
  BirderState birder(n);
  const BirderOptions options{.beta = 0.95f, .amsgrad_max = true};
  run(state, [&] { birder.update(options, 2, 1e-8f, s.g, s.x); });
}

void BM_birder_update_scalar(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] { scalar::birder(s, 0.95f, 1e-8f); });
}

#define COMPOPT_OPTIM_BENCH(fn) \
  BENCHMARK(fn)->Arg(kSizes[0])->Arg(kSizes[1])->Arg(kSizes[2])->Unit(benchmark::kMicrosecond)

COMPOPT_OPTIM_BENCH(BM_adam_direction);
COMPOPT_OPTIM_BENCH(BM_adam_direction_scalar);
COMPOPT_OPTIM_BENCH(BM_adam_update);
COMPOPT_OPTIM_BENCH(BM_adam_update_scalar);
COMPOPT_OPTIM_BENCH(BM_adam_update_baseline);
COMPOPT_OPTIM_BENCH(BM_adam_apply);
COMPOPT_OPTIM_BENCH(BM_adam_apply_baseline);
COMPOPT_OPTIM_BENCH(BM_lamb_update);
COMPOPT_OPTIM_BENCH(BM_lamb_update_baseline);
COMPOPT_OPTIM_BENCH(BM_momentum_update);
COMPOPT_OPTIM_BENCH(BM_momentum_update_baseline);
COMPOPT_OPTIM_BENCH(BM_variance_norms);
COMPOPT_OPTIM_BENCH(BM_variance_norms_baseline);
COMPOPT_OPTIM_BENCH(BM_birder_update);
COMPOPT_OPTIM_BENCH(BM_birder_update_scalar);

}  // namespace
}  // namespace compopt::bench
