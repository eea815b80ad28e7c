// Optimizer updates per element at 2^16, 269,322 (the Fashion-MNIST MLP) and 2^20 fp32
// parameters. BM_adam_direction is u = (m/c1)/(sqrt(v/c2)+eps); BM_adam_update is a whole Adam
// update after the allreduce (ema of m, ema of v, direction, x -= lr*(u + wd*x)); BM_birder_update
// is Birder's state update. Each is compared with BM_memcpy of the fp32 parameter vector (4
// bytes per element) and has a twin BM_<op>_scalar running the plain loops the optimizers had
// before core/optim/update_kernels.h, so the ratio table prints the speedup over them.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/compress/simd_level.h"
#include "core/optim/adam.h"
#include "core/optim/birder_state.h"
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
  run(state, [&] {
    ema(s.m, s.g, 0.9f);
    ema_square(s.v, s.g, 0.999f);
    adam_direction({}, 1, 1e-8f, s.m, s.v, s.u);
    apply_update(s.x, s.u, 1e-3f, 0.01f);
  });
}

void BM_adam_update_scalar(benchmark::State& state) {
  Vectors s(static_cast<size_t>(state.range(0)));
  run(state, [&] { scalar::adam_update(s, 1e-3f, 0.01f); });
}

void BM_birder_update(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  Vectors s(n);
  BirderState birder(n);
  const BirderOptions options{.beta = 0.95f, .amsgrad_max = true};
  run(state, [&] {
    std::copy(s.g.begin(), s.g.end(), s.x.begin());
    birder.update(options, 2, 1e-8f, s.x);
  });
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
COMPOPT_OPTIM_BENCH(BM_birder_update);
COMPOPT_OPTIM_BENCH(BM_birder_update_scalar);

}  // namespace
}  // namespace compopt::bench
