// Every optimizer against a scalar reference written from the formulas of docs/algorithms.md,
// on 1, 2 and 4 ranks. All ranks of a run simulate in one thread here; the
// compressed ones use RefCompressedAllreduce (with sign, or identity).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/core/optim/optim_test_util.h"

namespace compopt::testing {
namespace {

constexpr size_t kD = 32;
constexpr int kSteps = 5;

// x[rank] per step, from a reference step function.
using RefStep = std::function<void(int64_t t, std::vector<Vec>& x, const std::vector<Vec>& g)>;

std::vector<std::vector<Vec>> simulate(int n, size_t d, int steps, const RefStep& step) {
  std::vector<Vec> x(n, initial_params(d));
  std::vector<std::vector<Vec>> out{x};
  for (int t = 1; t <= steps; ++t) {
    std::vector<Vec> g(n);
    for (int i = 0; i < n; ++i) g[i] = test_grad(i, t, x[i]);
    step(t, x, g);
    out.push_back(x);
  }
  return out;
}

void expect_close(const History& got, const std::vector<std::vector<Vec>>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t s = 0; s < got.size(); ++s) {
    for (size_t r = 0; r < got[s].size(); ++r) {
      for (size_t j = 0; j < got[s][r].size(); ++j) {
        const double w = want[s][r][j];
        ASSERT_NEAR(got[s][r][j], w, tol * (1.0 + std::fabs(w)))
            << "step " << s << " rank " << r << " element " << j;
      }
    }
  }
}

// Applies x -= lr*(u + wd*x) on every rank with the same u.
void apply_all(std::vector<Vec>& x, const Vec& u, double lr, double wd) {
  for (auto& xi : x) {
    for (size_t j = 0; j < xi.size(); ++j) xi[j] -= static_cast<float>(lr * (u[j] + wd * xi[j]));
  }
}

class Reference : public ::testing::TestWithParam<int> {
 protected:
  int n() const { return GetParam(); }
  History run(const std::string& name, HyperParamMap hp,
              ParamLayout layout = ParamLayout::single(kD), int gpus_per_node = 0) {
    return run_optimizer({name, std::move(hp), std::move(layout), n(), gpus_per_node, kSteps});
  }
};

TEST_P(Reference, Sgd) {
  const double lr = 0.1, wd = 0.01;
  auto want =
      simulate(n(), kD, kSteps, [&](int64_t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        apply_all(x, mean_over(g), lr, wd);
      });
  expect_close(run("sgd", {{"lr", "0.1"}, {"weight_decay", "0.01"}}), want, 1e-5);
}

void momentum_case(Reference& self, int n, bool pytorch, bool nesterov) {
  const double lr = 0.1, b = 0.8;
  Vec m(kD, 0.0f);
  auto want = simulate(n, kD, kSteps, [&](int64_t, std::vector<Vec>& x, const std::vector<Vec>& g) {
    const Vec gm = mean_over(g);
    Vec dir(kD);
    for (size_t j = 0; j < kD; ++j) {
      if (pytorch) {
        m[j] = static_cast<float>(b * m[j] + gm[j]);
        dir[j] = nesterov ? static_cast<float>(gm[j] + b * m[j]) : m[j];
      } else {
        m[j] = static_cast<float>(b * m[j] + (1 - b) * gm[j]);
        dir[j] = nesterov ? static_cast<float>(b * m[j] + (1 - b) * gm[j]) : m[j];
      }
    }
    apply_all(x, dir, lr, 0.0);
  });
  HyperParamMap hp{{"lr", "0.1"},
                   {"beta", "0.8"},
                   {"form", pytorch ? "pytorch" : "paper"},
                   {"nesterov", nesterov ? "true" : "false"}};
  expect_close(run_optimizer({"momentum-sgd", hp, ParamLayout::single(kD), n, 0, kSteps}), want,
               1e-5);
  (void)self;
}

TEST_P(Reference, MomentumSgdAllForms) {
  for (bool pytorch : {false, true}) {
    for (bool nesterov : {false, true}) {
      SCOPED_TRACE(std::string(pytorch ? "pytorch" : "paper") + (nesterov ? "+nesterov" : ""));
      momentum_case(*this, n(), pytorch, nesterov);
    }
  }
}

// Adam reference on the averaged gradient (optionally through a reference
// compressed allreduce, for naive 1-bit Adam).
struct RefAdam {
  double b1 = 0.9, b2 = 0.99, eps = 1e-8;
  bool bias_correction = false;
  Vec m = Vec(kD, 0.0f), v = Vec(kD, 0.0f);

  Vec direction(int64_t t, const Vec& g) {
    Vec u(g.size());
    const double c1 = bias_correction ? 1 - std::pow(b1, t) : 1.0;
    const double c2 = bias_correction ? 1 - std::pow(b2, t) : 1.0;
    for (size_t j = 0; j < g.size(); ++j) {
      m[j] = static_cast<float>(b1 * m[j] + (1 - b1) * g[j]);
      v[j] = static_cast<float>(b2 * v[j] + (1 - b2) * g[j] * g[j]);
      u[j] = static_cast<float>((m[j] / c1) / (std::sqrt(v[j] / c2) + eps));
    }
    return u;
  }
};

TEST_P(Reference, AdamWithAndWithoutBiasCorrection) {
  for (bool bc : {false, true}) {
    SCOPED_TRACE(bc ? "bias_correction" : "no bias correction");
    RefAdam ref;
    ref.bias_correction = bc;
    auto want =
        simulate(n(), kD, kSteps, [&](int64_t t, std::vector<Vec>& x, const std::vector<Vec>& g) {
          apply_all(x, ref.direction(t, mean_over(g)), 0.05, 0.01);
        });
    expect_close(run("adam", {{"lr", "0.05"},
                              {"beta2", "0.99"},
                              {"weight_decay", "0.01"},
                              {"bias_correction", bc ? "1" : "0"}}),
                 want, 1e-5);
  }
}

// Per-tensor LAMB update of x given u (before weight decay); returns c per tensor.
std::vector<double> lamb_apply(std::vector<Vec>& x, const Vec& u_in, const ParamLayout& layout,
                               double lr, double wd, double c_min, double c_max,
                               const std::vector<double>* forced_c = nullptr) {
  std::vector<double> cs;
  for (size_t l = 0; l < layout.num_tensors(); ++l) {
    const auto& t = layout.tensor(l);
    Vec xl(x[0].begin() + t.offset, x[0].begin() + t.offset + t.size), ul(t.size);
    for (size_t j = 0; j < t.size; ++j) ul[j] = static_cast<float>(u_in[t.offset + j] + wd * xl[j]);
    double c = 1.0;
    if (forced_c) {
      c = (*forced_c)[l];
    } else if (l2(xl) > 0 && l2(ul) > 0) {
      c = std::clamp(l2(xl) / l2(ul), c_min, c_max);
    }
    cs.push_back(c);
    for (auto& xi : x) {
      for (size_t j = 0; j < t.size; ++j) xi[t.offset + j] -= static_cast<float>(lr * c * ul[j]);
    }
  }
  return cs;
}

ParamLayout two_tensors() { return ParamLayout::from_sizes({{"w", 12}, {"b", 20}}); }

TEST_P(Reference, Lamb) {
  RefAdam ref;
  const ParamLayout layout = two_tensors();
  auto want =
      simulate(n(), kD, kSteps, [&](int64_t t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        lamb_apply(x, ref.direction(t, mean_over(g)), layout, 0.05, 0.01, 0.3, 5.0);
      });
  expect_close(run("lamb",
                   {{"lr", "0.05"},
                    {"beta2", "0.99"},
                    {"weight_decay", "0.01"},
                    {"c_min", "0.3"},
                    {"c_max", "5"}},
                   layout),
               want, 1e-5);
}

// 1-bit Adam: Adam for T_w = 2 steps, then local momentum through the
// compressed allreduce with the frozen variance.
void onebit_adam_case(int n, bool identity, bool uncompressed) {
  RefAdam ref;
  RefCompressedAllreduce car(kD, n, identity);
  const int64_t tw = 2;
  auto want =
      simulate(n, kD, kSteps, [&](int64_t t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        if (t <= tw) {
          apply_all(x, ref.direction(t, mean_over(g)), 0.05, 0.0);
          return;
        }
        std::vector<Vec> local(n, ref.m);
        for (int i = 0; i < n; ++i) {
          for (size_t j = 0; j < kD; ++j) {
            local[i][j] = static_cast<float>(ref.b1 * ref.m[j] + (1 - ref.b1) * g[i][j]);
          }
        }
        ref.m = uncompressed ? mean_over(local) : car.run(local);
        Vec u(kD);
        for (size_t j = 0; j < kD; ++j)
          u[j] = static_cast<float>(ref.m[j] / (std::sqrt(ref.v[j]) + ref.eps));
        apply_all(x, u, 0.05, 0.0);
      });
  HyperParamMap hp{{"lr", "0.05"}, {"beta2", "0.99"}, {"freeze_step", "2"}};
  if (!uncompressed) hp["compressor"] = identity ? "identity" : "sign";
  expect_close(run_optimizer({uncompressed ? "onebit-adam-32bit" : "onebit-adam", hp,
                              ParamLayout::single(kD), n, 0, kSteps}),
               want, 2e-5);
}

TEST_P(Reference, OnebitAdamSign) { onebit_adam_case(n(), false, false); }
TEST_P(Reference, OnebitAdamIdentity) { onebit_adam_case(n(), true, false); }
TEST_P(Reference, OnebitAdam32Bit) { onebit_adam_case(n(), true, true); }

TEST_P(Reference, NaiveOnebitAdamSign) {
  RefAdam ref;
  RefCompressedAllreduce car(kD, n());
  auto want =
      simulate(n(), kD, kSteps, [&](int64_t t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        apply_all(x, ref.direction(t, car.run(g)), 0.05, 0.0);
      });
  expect_close(run("naive-onebit-adam", {{"lr", "0.05"}, {"beta2", "0.99"}}), want, 2e-5);
}

TEST_P(Reference, OnebitLambSign) {
  const ParamLayout layout = two_tensors();
  const size_t L = layout.num_tensors();
  const double b1 = 0.9, b2 = 0.99, b3 = 0.9, eps = 1e-8, lr = 0.05, wd = 0.01;
  const int64_t tw = 2;
  RefAdam ref;
  RefCompressedAllreduce car(kD, n());
  std::vector<double> c_avg(L, 0.0), k(L, 1.0), r_prev(L, 0.0);
  Vec v_fresh;
  auto want =
      simulate(n(), kD, kSteps, [&](int64_t t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        if (t <= tw) {
          const auto cs = lamb_apply(x, ref.direction(t, mean_over(g)), layout, lr, wd, 0.01, 10.0);
          for (size_t l = 0; l < L; ++l) c_avg[l] = b3 * c_avg[l] + (1 - b3) * cs[l];
          if (t == tw) {
            v_fresh = ref.v;
            std::vector<double> sigma(L);
            double mean = 0;
            for (size_t l = 0; l < L; ++l) {
              const auto& ts = layout.tensor(l);
              sigma[l] = l2(Vec(ref.m.begin() + ts.offset, ref.m.begin() + ts.offset + ts.size)) /
                         std::sqrt(static_cast<double>(ts.size));
              mean += sigma[l] / L;
            }
            for (size_t l = 0; l < L; ++l) k[l] = mean / sigma[l];
          }
          return;
        }
        const Vec m_prev = ref.m;
        std::vector<Vec> local(n(), Vec(kD));
        for (int i = 0; i < n(); ++i) {
          for (size_t l = 0; l < L; ++l) {
            const auto& ts = layout.tensor(l);
            for (size_t j = ts.offset; j < ts.offset + ts.size; ++j) {
              local[i][j] = static_cast<float>((b1 * m_prev[j] + (1 - b1) * g[i][j]) * k[l]);
            }
          }
        }
        const Vec avg = car.run(local);
        std::vector<double> c(L);
        Vec u(kD);
        for (size_t l = 0; l < L; ++l) {
          const auto& ts = layout.tensor(l);
          double r = 0;
          for (size_t j = ts.offset; j < ts.offset + ts.size; ++j) {
            ref.m[j] = static_cast<float>(avg[j] / k[l]);
            const double gr = (ref.m[j] - b1 * m_prev[j]) / (1 - b1);
            v_fresh[j] = static_cast<float>(b2 * v_fresh[j] + (1 - b2) * gr * gr);
            r = std::max(r, (std::sqrt(ref.v[j]) + eps) / (std::sqrt(v_fresh[j]) + eps));
            u[j] = static_cast<float>(ref.m[j] / (std::sqrt(ref.v[j]) + eps));
          }
          if (t > tw + 1) r = std::clamp(r, 0.9 * r_prev[l], 1.1 * r_prev[l]);
          r = std::clamp(r, 0.5, 4.0);
          r_prev[l] = r;
          c[l] = r * c_avg[l];
        }
        lamb_apply(x, u, layout, lr, wd, 0, 0, &c);
      });
  expect_close(
      run("onebit-lamb",
          {{"lr", "0.05"}, {"beta2", "0.99"}, {"weight_decay", "0.01"}, {"freeze_step", "2"}},
          layout),
      want, 5e-5);
}

// Birder with the identity compressor (binary is random; its unbiasedness is
// tested in invariants_test.cc). State per "owner": rank (flat) or node.
struct RefBirder {
  double beta = 0.9, eps = 1e-8;
  Vec m = Vec(kD, 0.0f), b = Vec(kD, 0.0f);
  Vec q(const Vec& g) {
    Vec out(kD);
    for (size_t j = 0; j < kD; ++j) {
      m[j] = static_cast<float>(beta * m[j] + (1 - beta) * g[j]);
      b[j] = static_cast<float>(beta * b[j] + (1 - beta) * std::fabs(g[j]));
      out[j] = static_cast<float>(m[j] / (b[j] + eps));
    }
    return out;
  }
};

TEST_P(Reference, BirderFlatIdentity) {
  std::vector<RefBirder> ref(n());
  auto want =
      simulate(n(), kD, kSteps, [&](int64_t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        std::vector<Vec> q(n());
        for (int i = 0; i < n(); ++i) q[i] = ref[i].q(g[i]);
        apply_all(x, mean_over(q), 0.05, 0.01);
      });
  expect_close(
      run("birder",
          {{"lr", "0.05"}, {"beta", "0.9"}, {"weight_decay", "0.01"}, {"compressor", "identity"}}),
      want, 2e-5);
}

TEST_P(Reference, BirderHierarchicalIdentity) {
  const int per_node = n() >= 4 ? 2 : 1;
  const int nodes = n() / per_node;
  std::vector<RefBirder> ref(nodes);
  auto want =
      simulate(n(), kD, kSteps, [&](int64_t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        std::vector<Vec> q(nodes);
        for (int node = 0; node < nodes; ++node) {
          q[node] = ref[node].q(mean_over(
              std::vector<Vec>(g.begin() + node * per_node, g.begin() + (node + 1) * per_node)));
        }
        apply_all(x, mean_over(q), 0.05, 0.0);
      });
  expect_close(
      run("birder-hierarchical", {{"lr", "0.05"}, {"beta", "0.9"}, {"compressor", "identity"}},
          ParamLayout::single(kD), per_node),
      want, 2e-5);
}

TEST_P(Reference, EfMomentumSgdSign) {
  std::vector<Vec> m(n(), Vec(kD, 0.0f));
  RefCompressedAllreduce car(kD, n());
  auto want =
      simulate(n(), kD, kSteps, [&](int64_t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        for (int i = 0; i < n(); ++i) {
          for (size_t j = 0; j < kD; ++j)
            m[i][j] = static_cast<float>(0.8 * m[i][j] + 0.2 * g[i][j]);
        }
        apply_all(x, car.run(m), 0.1, 0.0);
      });
  expect_close(run("ef-momentum-sgd", {{"lr", "0.1"}, {"beta", "0.8"}}), want, 2e-5);
}

TEST_P(Reference, DoubleSqueezeSignWithPyTorchMomentum) {
  Vec m(kD, 0.0f);
  RefCompressedAllreduce car(kD, n());
  auto want =
      simulate(n(), kD, kSteps, [&](int64_t, std::vector<Vec>& x, const std::vector<Vec>& g) {
        const Vec avg = car.run(g);
        for (size_t j = 0; j < kD; ++j) m[j] = static_cast<float>(0.5 * m[j] + avg[j]);
        apply_all(x, m, 0.1, 0.0);
      });
  expect_close(run("doublesqueeze", {{"lr", "0.1"}, {"beta", "0.5"}, {"form", "pytorch"}}), want,
               2e-5);
}

TEST_P(Reference, LocalSgdAndLocalMomentumSgd) {
  for (bool momentum : {false, true}) {
    SCOPED_TRACE(momentum ? "local-momentum-sgd" : "local-sgd");
    std::vector<Vec> m(n(), Vec(kD, 0.0f));
    auto want =
        simulate(n(), kD, kSteps, [&](int64_t t, std::vector<Vec>& x, const std::vector<Vec>& g) {
          for (int i = 0; i < n(); ++i) {
            for (size_t j = 0; j < kD; ++j) {
              float dir = g[i][j];
              if (momentum) dir = m[i][j] = static_cast<float>(0.8 * m[i][j] + 0.2 * g[i][j]);
              x[i][j] -= static_cast<float>(0.1 * dir);
            }
          }
          if (t % 2 == 0) {
            const Vec xm = mean_over(x);
            for (auto& xi : x) xi = xm;
            if (momentum) {
              const Vec mm = mean_over(m);
              for (auto& mi : m) mi = mm;
            }
          }
        });
    expect_close(run(momentum ? "local-momentum-sgd" : "local-sgd",
                     momentum ? HyperParamMap{{"lr", "0.1"}, {"tau", "2"}, {"beta", "0.8"}}
                              : HyperParamMap{{"lr", "0.1"}, {"tau", "2"}}),
                 want, 1e-5);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, Reference, ::testing::Values(1, 2, 4),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "n" + std::to_string(p.param);
                         });

}  // namespace
}  // namespace compopt::testing
