// DiLoCo and Streaming DiLoCo against a scalar reference written from their papers' algorithms
// (DiLoCo: Douillard et al. 2023, Alg. 1; Streaming DiLoCo: Douillard et al. 2025, Alg. 2), on
// 1, 2 and 4 ranks; the 4-bit outer gradient's invariants; bad keys.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <mutex>

#include "tests/core/optim/optim_test_util.h"

namespace compopt::testing {
namespace {

using ::testing::HasSubstr;

constexpr double kLr = 0.05, kWd = 0.01, kEps = 1e-8, kB1 = 0.8, kB2 = 0.95;
constexpr double kOuterLr = 0.7, kOuterMomentum = 0.9;

struct Schedule {
  int64_t h = 1, fragments = 1, tau = 0;
  double alpha = 0;
};

// Every rank's parameters after every step, in double: AdamW with bias correction on each
// rank's own gradient; fragment p (d/F elements, one more for the first d%F) sends its mean
// drift at the steps
// (p+1)*H/F + k*H and applies the outer Nesterov step tau steps later.
std::vector<std::vector<Vec>> reference(int n, size_t d, int steps, const Schedule& s) {
  const Vec x0 = initial_params(d);
  std::vector<std::vector<double>> x(n, std::vector<double>(x0.begin(), x0.end()));
  std::vector<std::vector<double>> m(n, std::vector<double>(d)), v = m;
  std::vector<double> anchor = x[0], mom(d, 0.0), sent(d, 0.0);
  std::vector<std::vector<Vec>> out;
  const auto snapshot = [&] {
    std::vector<Vec> now(n);
    for (int i = 0; i < n; ++i) now[i].assign(x[i].begin(), x[i].end());
    out.push_back(now);
  };
  const auto sends = [&](int64_t p, int64_t t) {
    const int64_t first = (p + 1) * s.h / s.fragments;
    return t >= first && (t - first) % s.h == 0;
  };
  snapshot();
  for (int t = 1; t <= steps; ++t) {
    for (int i = 0; i < n; ++i) {
      const Vec xf(x[i].begin(), x[i].end());
      const Vec g = test_grad(i, t, xf);
      for (size_t j = 0; j < d; ++j) {
        m[i][j] = kB1 * m[i][j] + (1 - kB1) * g[j];
        v[i][j] = kB2 * v[i][j] + (1 - kB2) * g[j] * g[j];
        const double u = (m[i][j] / (1 - std::pow(kB1, t))) /
                         (std::sqrt(v[i][j] / (1 - std::pow(kB2, t))) + kEps);
        x[i][j] -= kLr * (u + kWd * x[i][j]);
      }
    }
    for (int64_t p = 0; p < s.fragments; ++p) {
      const size_t size = d / s.fragments, longer = d % s.fragments;
      const size_t begin = p * size + std::min<size_t>(p, longer);
      const size_t end = begin + size + (static_cast<size_t>(p) < longer ? 1 : 0);
      if (sends(p, t)) {
        for (size_t j = begin; j < end; ++j) {
          double sum = 0;
          for (int i = 0; i < n; ++i) sum += anchor[j] - x[i][j];
          sent[j] = sum / n;
        }
      }
      if (!sends(p, t - s.tau)) continue;
      for (size_t j = begin; j < end; ++j) {
        mom[j] = kOuterMomentum * mom[j] + sent[j];
        anchor[j] -= kOuterLr * (sent[j] + kOuterMomentum * mom[j]);
        for (int i = 0; i < n; ++i) x[i][j] = s.alpha * x[i][j] + (1 - s.alpha) * anchor[j];
      }
    }
    snapshot();
  }
  return out;
}

HyperParamMap keys(const Schedule& s, bool streaming) {
  HyperParamMap hp = {{"lr", "0.05"},
                      {"weight_decay", "0.01"},
                      {"beta1", "0.8"},
                      {"beta2", "0.95"},
                      {"inner_steps", std::to_string(s.h)}};
  if (streaming) {
    hp["fragments"] = std::to_string(s.fragments);
    hp["overlap_steps"] = std::to_string(s.tau);
    hp["mixing"] = std::to_string(s.alpha);
    hp["outer_bits"] = "32";
  }
  return hp;
}

void expect_close(const History& got, const std::vector<std::vector<Vec>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t t = 0; t < got.size(); ++t) {
    for (size_t r = 0; r < got[t].size(); ++r) {
      for (size_t j = 0; j < got[t][r].size(); ++j) {
        const double w = want[t][r][j];
        ASSERT_NEAR(got[t][r][j], w, 2e-5 * (1.0 + std::fabs(w)))
            << "step " << t << " rank " << r << " element " << j;
      }
    }
  }
}

class DilocoReference : public ::testing::TestWithParam<int> {
 protected:
  int n() const { return GetParam(); }
};

TEST_P(DilocoReference, DilocoIsLocalAdamWThenOuterNesterov) {
  const Schedule s{.h = 3};
  const ParamLayout layout = ParamLayout::single(32);
  expect_close(run_optimizer({"diloco", keys(s, false), layout, n(), 0, 10}),
               reference(n(), 32, 10, s));
}

TEST_P(DilocoReference, StreamingDilocoStaggersFragmentsAndMergesTauStepsLater) {
  const ParamLayout layout = ParamLayout::from_sizes({{"a", 13}, {"b", 6}, {"c", 14}});
  for (const Schedule& s : {Schedule{.h = 6, .fragments = 3, .tau = 2, .alpha = 0.5},
                            Schedule{.h = 4, .fragments = 2, .tau = 0, .alpha = 0.25},
                            Schedule{.h = 4, .fragments = 4, .tau = 3, .alpha = 0}}) {
    SCOPED_TRACE("H " + std::to_string(s.h) + " F " + std::to_string(s.fragments) + " tau " +
                 std::to_string(s.tau));
    expect_close(run_optimizer({"streaming-diloco", keys(s, true), layout, n(), 0, 13}),
                 reference(n(), layout.total(), 13, s));
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, DilocoReference, ::testing::Values(1, 2, 4),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return "n" + std::to_string(p.param);
                         });

bool bit_equal(const Vec& a, const Vec& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// DiLoCo leaves every rank on the same parameters after each outer step and on its own between.
TEST(Diloco, RanksAgreeBitForBitExactlyAfterOuterSteps) {
  const History h =
      run_optimizer({"diloco", {{"inner_steps", "3"}}, ParamLayout::single(40), 4, 2, 9});
  for (size_t t = 1; t < h.size(); ++t) {
    EXPECT_EQ(bit_equal(h[t][1], h[t][0]) && bit_equal(h[t][3], h[t][0]), t % 3 == 0)
        << "step " << t;
  }
}

// The 4-bit outer gradient: anchors (and, with alpha = 0, parameters) stay bit-identical over
// ranks; the result differs from the fp32 mean's but stays near it.
TEST(StreamingDiloco, FourBitOuterGradientKeepsRanksInStepAndNearTheFp32Run) {
  const ParamLayout layout = ParamLayout::single(64);
  HyperParamMap hp = {{"inner_steps", "4"}, {"fragments", "2"}, {"mixing", "0"}};
  const History quantised = run_optimizer({"streaming-diloco", hp, layout, 4, 0, 9});
  hp["outer_bits"] = "32";
  const History fp32 = run_optimizer({"streaming-diloco", hp, layout, 4, 0, 9});
  // Fragment 1 (elements 32..63) is merged at steps 5 and 9 (sent at 4 and 8, tau = 1).
  for (size_t t : {5u, 9u}) {
    const Vec a(quantised[t][0].begin() + 32, quantised[t][0].end());
    const Vec b(quantised[t][2].begin() + 32, quantised[t][2].end());
    EXPECT_TRUE(bit_equal(a, b)) << "step " << t;
    EXPECT_FALSE(bit_equal(quantised[t][0], quantised[t][2])) << "fragment 0 is local at " << t;
  }
  double diff = 0, scale = 0;
  for (size_t j = 0; j < 64; ++j) {
    diff = std::max(diff, std::fabs(double{quantised[9][0][j]} - fp32[9][0][j]));
    scale = std::max(scale, std::fabs(double{fp32[9][0][j] - fp32[0][0][j]}));
  }
  EXPECT_GT(diff, 0.0);
  EXPECT_LT(diff, 0.5 * scale);
}

// More fragments than elements leaves the extra ones empty; a schedule of 10^15 fragments costs
// nothing per step (the sender of a step is computed, not searched, and channels are made on use).
TEST(StreamingDiloco, AnyFragmentCountRunsInConstantMemory) {
  const std::string huge = "1000000000000000";
  for (const HyperParamMap& hp : {HyperParamMap{{"inner_steps", "10"}, {"fragments", "10"}},
                                  HyperParamMap{{"inner_steps", huge}, {"fragments", huge}}}) {
    const History h = run_optimizer({"streaming-diloco", hp, ParamLayout::single(8), 2, 0, 12});
    for (float x : h.back()[0]) EXPECT_TRUE(std::isfinite(x));
  }
}

std::string refusal(const std::string& name, const HyperParamMap& hp) {
  try {
    make_optimizer(name, hp, ParamLayout::single(8));
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Diloco, BadKeysAreRefusedNamingKeyAndRange) {
  EXPECT_THAT(refusal("diloco", {{"inner_steps", "0"}}), HasSubstr("key 'inner_steps'"));
  EXPECT_THAT(refusal("diloco", {{"inner_steps", "ten"}}), HasSubstr("key 'inner_steps'"));
  EXPECT_THAT(refusal("diloco", {{"outer_lr", "0"}}), HasSubstr("key 'outer_lr'"));
  EXPECT_THAT(refusal("diloco", {{"outer_momentum", "1"}}), HasSubstr("key 'outer_momentum'"));
  EXPECT_THAT(refusal("diloco", {{"fragments", "2"}}), HasSubstr("unknown key 'fragments'"));
  EXPECT_THAT(refusal("streaming-diloco", {{"fragments", "3"}}),
              HasSubstr("key 'fragments' = 3, expected an integer >= 1 that divides "
                        "inner_steps = 50"));
  EXPECT_THAT(refusal("streaming-diloco",
                      {{"inner_steps", "4"}, {"fragments", "2"}, {"overlap_steps", "4"}}),
              HasSubstr("key 'overlap_steps' = 4, expected an integer in [0, inner_steps) = "
                        "[0, 4)"));
  EXPECT_THAT(refusal("streaming-diloco", {{"overlap_steps", "-1"}}),
              HasSubstr("key 'overlap_steps'"));
  EXPECT_THAT(refusal("streaming-diloco", {{"mixing", "1.5"}}), HasSubstr("key 'mixing'"));
  EXPECT_THAT(refusal("streaming-diloco", {{"mixing", "half"}}), HasSubstr("key 'mixing'"));
  EXPECT_THAT(refusal("streaming-diloco", {{"outer_bits", "17"}}),
              HasSubstr("key 'outer_bits' = 17, expected an integer in 2..16 (nbit) or 32 (fp32)"));
  EXPECT_THAT(refusal("streaming-diloco", {{"outer_bits", "1"}}), HasSubstr("key 'outer_bits'"));
  EXPECT_EQ(refusal("streaming-diloco", {{"outer_bits", "32"}, {"fragments", "10"}}), "accepted");
}

}  // namespace
}  // namespace compopt::testing
