#pragma once
// Helpers for the optimizer tests: deterministic per-rank gradients, a driver
// that runs an optimizer on n local ranks and records every rank's parameters
// after every step, and scalar references of the collectives (written from
// docs/algorithms.md, independent of core/comm/).

#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "core/util/error.h"

namespace compopt::testing {

using Vec = std::vector<float>;

// Gradient of rank i at step t (1-based) and point x: a rank-dependent
// quadratic pull plus a deterministic rank/step/element perturbation.
inline Vec test_grad(int rank, int64_t t, const Vec& x) {
  Vec g(x.size());
  for (size_t j = 0; j < x.size(); ++j) {
    const double a = 0.5 + 0.05 * static_cast<double>(j % 7);
    const double target = std::sin(0.7 * static_cast<double>(j) + 0.3 * rank);
    g[j] = static_cast<float>(a * (x[j] - target) +
                              0.3 * std::cos(1.3 * static_cast<double>(j) + 2.1 * rank + 0.9 * t));
  }
  return g;
}

inline Vec initial_params(size_t d) {
  Vec x(d);
  for (size_t j = 0; j < d; ++j) x[j] = static_cast<float>(0.5 * std::cos(0.37 * j + 0.2));
  return x;
}

// history[step][rank] = params after step (step 0 = initial).
using History = std::vector<std::vector<Vec>>;

using GradFn = std::function<Vec(int rank, int64_t t, const Vec& x)>;

struct RunConfig {
  std::string name;
  HyperParamMap params;
  ParamLayout layout;
  int ranks = 1;
  int gpus_per_node = 0;
  int steps = 3;
  GradFn grad = test_grad;
};

// Runs cfg.steps steps on cfg.ranks local ranks from initial_params.
inline History run_optimizer(const RunConfig& cfg) {
  const size_t d = cfg.layout.total();
  History hist(static_cast<size_t>(cfg.steps) + 1, std::vector<Vec>(cfg.ranks));
  std::mutex mu;
  run_local(
      cfg.ranks,
      [&](Communicator& comm) {
        auto opt = make_optimizer(cfg.name, cfg.params, cfg.layout);
        Vec x = initial_params(d);
        {
          std::lock_guard lock(mu);
          hist[0][comm.rank()] = x;
        }
        for (int s = 1; s <= cfg.steps; ++s) {
          const Vec g = cfg.grad(comm.rank(), s, x);
          opt->step(x, g, comm);
          std::lock_guard lock(mu);
          hist[s][comm.rank()] = x;
        }
      },
      cfg.gpus_per_node);
  return hist;
}

// ---- scalar references written from docs/algorithms.md ----

inline Vec mean_over(const std::vector<Vec>& per_rank) {
  Vec out(per_rank[0].size());
  for (size_t j = 0; j < out.size(); ++j) {
    double s = 0;
    for (const auto& v : per_rank) s += v[j];
    out[j] = static_cast<float>(s / static_cast<double>(per_rank.size()));
  }
  return out;
}

// sign compressor: s = ||y||/sqrt(k), decode = s * (y >= 0 ? 1 : -1).
inline Vec ref_sign_round_trip(const Vec& y) {
  double sq = 0;
  for (float v : y) sq += static_cast<double>(v) * v;
  const auto s = static_cast<float>(std::sqrt(sq) / std::sqrt(static_cast<double>(y.size())));
  Vec out(y.size());
  for (size_t j = 0; j < y.size(); ++j) out[j] = y[j] >= 0.0f ? s : -s;
  return out;
}

// 3-phase compressed allreduce of n ranks' vectors with the sign
// compressor and worker/server EF; `identity` skips compression.
struct RefCompressedAllreduce {
  int n = 1;
  size_t d = 0, padded = 0, chunk = 0;
  bool identity = false;
  std::vector<Vec> worker_ef, server_ef;

  RefCompressedAllreduce(size_t d_in, int n_in, bool identity_in = false)
      : n(n_in), d(d_in), identity(identity_in) {
    const size_t unit = 8 * static_cast<size_t>(n);
    padded = (d + unit - 1) / unit * unit;
    chunk = padded / static_cast<size_t>(n);
    worker_ef.assign(n, Vec(padded, 0.0f));
    server_ef.assign(n, Vec(chunk, 0.0f));
  }

  Vec round_trip(const Vec& y) const { return identity ? y : ref_sign_round_trip(y); }

  Vec run(const std::vector<Vec>& x) {
    std::vector<Vec> decoded(n);
    for (int i = 0; i < n; ++i) {
      Vec y(padded, 0.0f);
      for (size_t j = 0; j < padded; ++j) y[j] = (j < d ? x[i][j] : 0.0f) + worker_ef[i][j];
      decoded[i] = round_trip(y);
      for (size_t j = 0; j < padded; ++j) worker_ef[i][j] = y[j] - decoded[i][j];
    }
    Vec out(d);
    for (int c = 0; c < n; ++c) {
      Vec z(chunk);
      for (size_t k = 0; k < chunk; ++k) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += decoded[i][c * chunk + k];
        z[k] = static_cast<float>(s / n) + server_ef[c][k];
      }
      const Vec dz = round_trip(z);
      for (size_t k = 0; k < chunk; ++k) {
        server_ef[c][k] = z[k] - dz[k];
        if (c * chunk + k < d) out[c * chunk + k] = dz[k];
      }
    }
    return out;
  }
};

inline double l2(const Vec& x) {
  double s = 0;
  for (float v : x) s += static_cast<double>(v) * v;
  return std::sqrt(s);
}

}  // namespace compopt::testing
