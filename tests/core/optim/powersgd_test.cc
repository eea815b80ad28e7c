// PowerSGD ('powersgd', 'powersgd-adam') against an independent double-precision reference of
// the hook's math (powersgd_compressor.h) on 1, 2 and 4 ranks, plus hand-derived cases: an
// exactly rank-1 gradient is recovered exactly, and bad keys are refused.

#include <gtest/gtest.h>

#include <cmath>

#include "core/optim/powersgd_compressor.h"
#include "tests/core/optim/optim_test_util.h"

namespace compopt::testing {
namespace {

using Dvec = std::vector<double>;

// Two factored matrices, a bias and a 2 x 2 matrix too small to pay (d = 84).
ParamLayout test_layout() {
  return ParamLayout::from_shapes({{"w1", {8, 6}}, {"b1", {8}}, {"w2", {3, 8}}, {"tiny", {2, 2}}});
}

void gram_schmidt(Dvec& a, size_t rows, size_t cols, double eps) {
  for (size_t j = 0; j < cols; ++j) {
    double norm = 0;
    for (size_t i = 0; i < rows; ++i) norm += a[i * cols + j] * a[i * cols + j];
    norm = std::sqrt(norm) + eps;
    for (size_t i = 0; i < rows; ++i) a[i * cols + j] = norm > 0 ? a[i * cols + j] / norm : 0.0;
    for (size_t k = j + 1; k < cols; ++k) {
      double dot = 0;
      for (size_t i = 0; i < rows; ++i) dot += a[i * cols + j] * a[i * cols + k];
      for (size_t i = 0; i < rows; ++i) a[i * cols + k] -= dot * a[i * cols + j];
    }
  }
}

// The hook's math in double with plain loops: error feedback per rank, warm-started Q per
// factored matrix, the mean of everything else.
struct RefPowerSgd {
  struct Matrix {
    size_t offset, rows, cols, rank;
    Dvec q;
  };
  std::vector<Matrix> matrices;
  std::vector<Dvec> error;
  bool feedback = true, warm = true;
  double eps = 0;
  uint64_t seed = 0;

  RefPowerSgd(const ParamLayout& layout, size_t rank, double min_rate, int ranks,
              const Vec& initial_q) {
    size_t at = 0;
    for (const TensorSpec& t : layout.tensors()) {
      const size_t cols = t.rows ? t.size / t.rows : 0;
      const size_t r = std::min({t.rows, cols, rank});
      if (t.rows && double(t.rows + cols) * double(r) * min_rate < double(t.size)) {
        const auto first = initial_q.begin() + static_cast<std::ptrdiff_t>(at);
        matrices.push_back({t.offset, t.rows, cols, r,
                            Dvec(first, first + static_cast<std::ptrdiff_t>(cols * r))});
        at += cols * r;
      }
    }
    error.assign(ranks, Dvec(layout.total(), 0.0));
  }

  Dvec mean(const std::vector<Vec>& g, int64_t t) {
    const size_t n = g.size(), d = g[0].size();
    std::vector<Dvec> m(n, Dvec(d));
    Dvec out(d, 0.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < d; ++j) {
        m[i][j] = g[i][j] + (feedback ? error[i][j] : 0.0);
        out[j] += m[i][j] / double(n);
      }
    }
    if (!warm) fresh_q(t);
    for (Matrix& s : matrices) factor(s, m, out);
    if (feedback) {
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < d; ++j) error[i][j] = m[i][j] - out[j];
      }
    }
    return out;
  }

  void fresh_q(int64_t t) {
    size_t total = 0;
    for (const Matrix& s : matrices) total += s.q.size();
    Vec draws(total);
    powersgd_random_factors(seed, t, draws);
    size_t at = 0;
    for (Matrix& s : matrices) {
      for (double& v : s.q) v = draws[at++];
    }
  }

  void factor(Matrix& s, const std::vector<Dvec>& m, Dvec& out) const {
    const size_t n = m.size(), r = s.rank;
    gram_schmidt(s.q, s.cols, r, eps);
    Dvec p(s.rows * r, 0.0);
    for (size_t w = 0; w < n; ++w)
      for (size_t i = 0; i < s.rows; ++i)
        for (size_t j = 0; j < s.cols; ++j)
          for (size_t k = 0; k < r; ++k)
            p[i * r + k] += m[w][s.offset + i * s.cols + j] * s.q[j * r + k];
    gram_schmidt(p, s.rows, r, eps);
    std::fill(s.q.begin(), s.q.end(), 0.0);
    for (size_t w = 0; w < n; ++w)
      for (size_t i = 0; i < s.rows; ++i)
        for (size_t j = 0; j < s.cols; ++j)
          for (size_t k = 0; k < r; ++k)
            s.q[j * r + k] += m[w][s.offset + i * s.cols + j] * p[i * r + k] / double(n);
    for (size_t i = 0; i < s.rows; ++i) {
      for (size_t j = 0; j < s.cols; ++j) {
        double v = 0;
        for (size_t k = 0; k < r; ++k) v += p[i * r + k] * s.q[j * r + k];
        out[s.offset + i * s.cols + j] = v;
      }
    }
  }
};

Vec initial_q(const std::string& name, const HyperParamMap& hp, const ParamLayout& layout) {
  return make_optimizer(name, hp, layout)->save_state().tensor("powersgd.q");
}

struct Case {
  std::string name;
  HyperParamMap hp;
  size_t rank = 1;
  double min_rate = 2;
  bool feedback = true, warm = true;
  double eps = 0;
};

// x per step from the reference: start warmup steps of the plain mean, then PowerSGD, then
// paper-form momentum (beta 0.8) or Adam (0.9, 0.99, no bias correction); lr 0.05, wd 0.01.
std::vector<Vec> reference(const Case& c, int ranks, int steps, int64_t start) {
  const ParamLayout layout = test_layout();
  RefPowerSgd ref(layout, c.rank, c.min_rate, ranks, initial_q(c.name, c.hp, layout));
  ref.feedback = c.feedback;
  ref.warm = c.warm;
  ref.eps = c.eps;
  const size_t d = layout.total();
  Vec x = initial_params(d);
  Dvec m(d, 0.0), v(d, 0.0);
  std::vector<Vec> out{x};
  for (int t = 1; t <= steps; ++t) {
    std::vector<Vec> g(ranks);
    for (int i = 0; i < ranks; ++i) g[i] = test_grad(i, t, x);
    Dvec mean(d, 0.0);
    if (t <= start) {
      for (const Vec& gi : g)
        for (size_t j = 0; j < d; ++j) mean[j] += gi[j] / double(ranks);
    } else {
      mean = ref.mean(g, t);
    }
    for (size_t j = 0; j < d; ++j) {
      double u;
      if (c.name == "powersgd") {
        m[j] = 0.8 * m[j] + 0.2 * mean[j];
        u = m[j];
      } else {
        m[j] = 0.9 * m[j] + 0.1 * mean[j];
        v[j] = 0.99 * v[j] + 0.01 * mean[j] * mean[j];
        u = m[j] / (std::sqrt(v[j]) + 1e-8);
      }
      x[j] = static_cast<float>(x[j] - 0.05 * (u + 0.01 * x[j]));
    }
    out.push_back(x);
  }
  return out;
}

class PowerSgdReference : public ::testing::TestWithParam<int> {};

void expect_matches_reference(Case c, int ranks) {
  constexpr int kSteps = 7;
  constexpr int64_t kStart = 2;
  c.hp.insert({{"lr", "0.05"}, {"weight_decay", "0.01"}, {"start_powerSGD_iter", "2"}});
  if (c.name == "powersgd") {
    c.hp["beta"] = "0.8";
  } else {
    c.hp["beta2"] = "0.99";
  }
  const History got = run_optimizer({c.name, c.hp, test_layout(), ranks, 0, kSteps});
  const std::vector<Vec> want = reference(c, ranks, kSteps, kStart);
  for (size_t s = 0; s < got.size(); ++s) {
    for (int r = 0; r < ranks; ++r) {
      ASSERT_EQ(got[s][r], got[s][0]) << "step " << s << ": rank " << r << " differs from rank 0";
    }
    for (size_t j = 0; j < want[s].size(); ++j) {
      ASSERT_NEAR(got[s][0][j], want[s][j], 2e-5 * (1.0 + std::fabs(want[s][j])))
          << c.name << " step " << s << " element " << j;
    }
  }
}

TEST_P(PowerSgdReference, MomentumRankOne) {
  expect_matches_reference({"powersgd", {}}, GetParam());
}

TEST_P(PowerSgdReference, AdamRankTwoWithEpsilon) {
  expect_matches_reference({"powersgd-adam",
                            {{"matrix_approximation_rank", "2"},
                             {"min_compression_rate", "1"},
                             {"orthogonalization_epsilon", "1e-3"}},
                            2,
                            1,
                            true,
                            true,
                            1e-3},
                           GetParam());
}

TEST_P(PowerSgdReference, FreshQEveryStepWithoutErrorFeedback) {
  expect_matches_reference(
      {"powersgd",
       {{"use_error_feedback", "false"}, {"warm_start", "false"}, {"seed", "0"}},
       1,
       2,
       false,
       false},
      GetParam());
}

INSTANTIATE_TEST_SUITE_P(Ranks, PowerSgdReference, ::testing::Values(1, 2, 4),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "n" + std::to_string(p.param);
                         });

TEST(PowerSgd, RecoversAnExactlyRankOneGradient) {
  // Every rank's gradient is u v^T: P = u (v.q) normalises to u/|u|, Q = v |u|, so one step of
  // plain SGD (beta 0, lr 1) moves x by exactly -u v^T.
  const ParamLayout layout = ParamLayout::from_shapes({{"w", {4, 5}}});
  const GradFn rank_one = [](int, int64_t, const Vec&) {
    Vec g(20);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 5; ++j) g[i * 5 + j] = static_cast<float>((i + 1.0) * (0.5 - j * 0.25));
    return g;
  };
  const HyperParamMap hp = {{"lr", "1"}, {"beta", "0"}, {"start_powerSGD_iter", "0"}};
  const History got = run_optimizer({"powersgd", hp, layout, 2, 0, 1, rank_one});
  const Vec x0 = initial_params(20), g = rank_one(0, 1, x0);
  for (size_t j = 0; j < 20; ++j) EXPECT_NEAR(got[1][0][j], x0[j] - g[j], 1e-6) << j;
}

TEST(PowerSgd, StagesFollowStartPowerSgdIterAndCompressionSendsLess) {
  const ParamLayout layout = ParamLayout::from_shapes({{"w", {64, 64}}});
  std::vector<uint64_t> bytes;
  run_local(2, [&](Communicator& comm) {
    auto opt = make_optimizer("powersgd", {{"start_powerSGD_iter", "1"}}, layout);
    Vec x(4096, 0.0f), g(4096, 1.0f);
    EXPECT_EQ(opt->stage(), Stage::kWarmup);
    uint64_t before = comm.traffic().total().bytes;
    opt->step(x, g, comm);
    EXPECT_EQ(opt->stage(), Stage::kCompression);
    const uint64_t warmup = comm.traffic().total().bytes - before;
    before = comm.traffic().total().bytes;
    opt->step(x, g, comm);
    // P and Q: 64 + 64 floats against 4096 in the ring allreduce of warmup.
    if (comm.rank() == 0) bytes = {warmup, comm.traffic().total().bytes - before};
  });
  ASSERT_EQ(bytes.size(), 2u);
  EXPECT_NEAR(static_cast<double>(bytes[1]) / static_cast<double>(bytes[0]), 128.0 / 4096.0, 1e-3);
}

TEST(PowerSgd, ZeroGradientWithoutEpsilonStaysFinite) {
  const ParamLayout layout = ParamLayout::from_shapes({{"w", {6, 6}}});
  const GradFn zero = [](int, int64_t, const Vec& x) { return Vec(x.size(), 0.0f); };
  const History got =
      run_optimizer({"powersgd", {{"start_powerSGD_iter", "0"}}, layout, 2, 0, 2, zero});
  EXPECT_EQ(got[2][0], initial_params(36));
}

TEST(PowerSgd, BadKeysNameTheKeyAndWhatIsExpected) {
  // {key, value, a phrase of the message}: out of range, then the wrong type.
  const std::vector<std::vector<std::string>> cases = {
      {"matrix_approximation_rank", "0", "expected an integer >= 1"},
      {"start_powerSGD_iter", "-1", "expected an integer >= 0"},
      {"min_compression_rate", "-1", ">= 0"},
      {"orthogonalization_epsilon", "-1e-8", ">= 0"},
      {"start_powerSGD_iter", "1.5", "not an integer"},
      {"use_error_feedback", "maybe", "true"},
      {"orthogonalization_epsilon", "x", "not a finite number"}};
  for (const auto& c : cases) {
    try {
      make_optimizer("powersgd-adam", {{c[0], c[1]}}, test_layout());
      ADD_FAILURE() << c[0] << " = " << c[1] << " accepted";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("'" + c[0] + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(c[2]), std::string::npos) << what;
    }
  }
}

TEST(ParamLayoutShapes, MatricesCarryTheirRowsVectorsNone) {
  const ParamLayout l = test_layout();
  ASSERT_EQ(l.num_tensors(), 4u);
  EXPECT_EQ(l.total(), 48u + 8 + 24 + 4);
  EXPECT_EQ(l.tensor(0).rows, 8u);
  EXPECT_EQ(l.tensor(1).rows, 0u);
  EXPECT_EQ(l.tensor(2).offset, 56u);
  EXPECT_EQ(l.tensor(2).rows, 3u);
  EXPECT_EQ(ParamLayout::from_shapes({{"conv", {4, 3, 2, 2}}}).tensor(0).rows, 4u);
  EXPECT_EQ(ParamLayout::from_sizes({{"a", 6}}).tensor(0).rows, 0u);
  EXPECT_THROW(ParamLayout::from_shapes({{"z", {3, 0}}}), InvalidArgument);
}

}  // namespace
}  // namespace compopt::testing
