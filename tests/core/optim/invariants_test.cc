// Cross-cutting invariants of the optimizers (docs/algorithms.md): bit-identical ranks, 1-bit Adam
// / naive 1-bit Adam limits with the identity compressor, unbiased binary quantizer, 1-bit LAMB
// ratio clips, the automatic freeze detector.

#include <gtest/gtest.h>

#include <cstring>
#include <tuple>

#include "core/compress/compressor.h"
#include "core/optim/variance_freeze_detector.h"
#include "tests/core/optim/optim_test_util.h"

namespace compopt::testing {
namespace {

struct Named {
  std::string name;
  HyperParamMap hp;
};

std::vector<Named> all_configs() {
  return {{"sgd", {}},
          {"momentum-sgd", {{"nesterov", "true"}}},
          {"adam", {{"bias_correction", "true"}, {"wire", "fp16"}}},
          {"lamb", {}},
          {"onebit-adam", {{"freeze_step", "2"}}},
          {"onebit-adam-32bit", {{"freeze_step", "2"}}},
          {"naive-onebit-adam", {}},
          {"onebit-lamb", {{"freeze_step", "2"}}},
          {"birder", {{"amsgrad_max", "true"}, {"amsgrad_start", "2"}, {"seed", "7"}}},
          {"birder-hierarchical", {{"seed", "7"}}},
          {"ef-momentum-sgd", {}},
          {"doublesqueeze", {{"beta", "0.9"}}},
          {"local-sgd", {{"tau", "2"}}},
          {"local-momentum-sgd", {{"tau", "3"}}}};
}

bool bit_equal(const Vec& a, const Vec& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(Invariants, AllRanksBitIdenticalAfterEveryStep) {
  for (const auto& c : all_configs()) {
    SCOPED_TRACE(c.name);
    const History h =
        run_optimizer({c.name, c.hp, ParamLayout::from_sizes({{"a", 13}, {"b", 27}}), 4, 2, 6});
    const int64_t tau = c.name == "local-sgd" ? 2 : c.name == "local-momentum-sgd" ? 3 : 1;
    for (size_t s = 1; s < h.size(); ++s) {
      if (static_cast<int64_t>(s) % tau != 0) continue;
      for (size_t r = 1; r < h[s].size(); ++r) {
        EXPECT_TRUE(bit_equal(h[s][r], h[s][0])) << "step " << s << " rank " << r;
      }
      EXPECT_FALSE(bit_equal(h[s][0], h[s - 1][0])) << "step " << s << " did not move";
    }
  }
}

TEST(Invariants, OnebitAdamIdentityIsMomentumSgdPreconditionedByFrozenVariance) {
  const size_t d = 24;
  const ParamLayout layout = ParamLayout::single(d);
  run_local(3, [&](Communicator& comm) {
    auto onebit = make_optimizer(
        "onebit-adam", {{"lr", "0.05"}, {"freeze_step", "3"}, {"compressor", "identity"}}, layout);
    auto adam = make_optimizer("adam", {{"lr", "0.05"}}, layout);
    Vec x = initial_params(d), y = x;
    for (int t = 1; t <= 3; ++t) {
      onebit->step(x, test_grad(comm.rank(), t, x), comm);
      adam->step(y, test_grad(comm.rank(), t, y), comm);
      ASSERT_TRUE(bit_equal(x, y)) << "warmup must be Adam, step " << t;
    }
    EXPECT_EQ(onebit->stage(), Stage::kCompression);
    const OptimizerState s = adam->save_state();
    Vec m = s.tensor("m");
    const Vec v = s.tensor("v");
    for (int t = 4; t <= 8; ++t) {
      Vec g = test_grad(comm.rank(), t, x);
      onebit->step(x, g, comm);
      comm.allreduce(g, ReduceOp::kMean);
      for (size_t j = 0; j < d; ++j) {
        m[j] = 0.9f * m[j] + 0.1f * g[j];
        y[j] -= 0.05f * m[j] / (std::sqrt(v[j]) + 1e-8f);
      }
      for (size_t j = 0; j < d; ++j) ASSERT_NEAR(x[j], y[j], 1e-5) << "step " << t;
    }
  });
}

TEST(Invariants, NaiveOnebitAdamWithIdentityEqualsAdam) {
  for (const char* bc : {"false", "true"}) {
    const HyperParamMap hp{{"lr", "0.02"}, {"bias_correction", bc}};
    HyperParamMap naive = hp;
    naive["compressor"] = "identity";
    const ParamLayout layout = ParamLayout::single(40);
    const History a = run_optimizer({"adam", hp, layout, 4, 0, 6});
    const History b = run_optimizer({"naive-onebit-adam", naive, layout, 4, 0, 6});
    for (size_t s = 0; s < a.size(); ++s) {
      for (size_t j = 0; j < 40; ++j) ASSERT_NEAR(a[s][0][j], b[s][0][j], 1e-5) << s << "," << j;
    }
  }
}

TEST(Invariants, BinaryQuantizerIsUnbiasedWithinVarianceBound) {
  const size_t d = 4096;
  const int samples = 64;
  const auto binary = make_compressor("binary");
  Vec x(d), mean(d, 0.0f), out(d);
  double variance_bound = 0;
  for (size_t j = 0; j < d; ++j) {
    x[j] = static_cast<float>(std::sin(0.013 * static_cast<double>(j * j)));
    variance_bound += 1.0 - static_cast<double>(x[j]) * x[j];  // E||decode - x||^2 <= d
  }
  for (int s = 0; s < samples; ++s) {
    RandomKey key;
    key.seed = 1234;
    key.step = static_cast<uint64_t>(s);
    binary->round_trip(x, out, key);
    for (size_t j = 0; j < d; ++j) {
      ASSERT_TRUE(out[j] == 1.0f || out[j] == -1.0f);
      mean[j] += out[j] / samples;
    }
  }
  double err = 0;
  for (size_t j = 0; j < d; ++j) err += (mean[j] - x[j]) * (mean[j] - x[j]);
  // E||mean - x||^2 = sum(1 - x^2)/S <= d/S; allow 1.5x for the sample.
  EXPECT_LE(err, 1.5 * variance_bound / samples);
  EXPECT_LE(variance_bound, static_cast<double>(d));
}

TEST(Invariants, OnebitLambRatioRespectsBothClips) {
  const ParamLayout layout = ParamLayout::from_sizes({{"w", 16}, {"b", 16}});
  for (double scale : {0.3, 3.0}) {  // shrinking or growing gradients after T_w
    SCOPED_TRACE(scale);
    std::vector<std::vector<double>> ratios;
    run_local(2, [&](Communicator& comm) {
      auto opt = make_optimizer("onebit-lamb",
                                {{"lr", "0.01"},
                                 {"freeze_step", "3"},
                                 {"beta2", "0.9"},
                                 {"r_max", scale < 1 ? "1.5" : "4"}},
                                layout);
      Vec x = initial_params(32);
      for (int t = 1; t <= 20; ++t) {
        Vec g = test_grad(comm.rank(), t, x);
        const double f = t <= 3 ? 1.0 : std::pow(scale, std::min(t - 3, 6));
        for (float& v : g) v = static_cast<float>(v * f);
        opt->step(x, g, comm);
        if (comm.rank() == 0 && t > 3) ratios.push_back(opt->metrics().layer_ratios);
      }
    });
    const double r_max = scale < 1 ? 1.5 : 4.0;
    bool hit_bound = false, hit_threshold = false;
    for (size_t s = 0; s < ratios.size(); ++s) {
      for (size_t l = 0; l < 2; ++l) {
        const double r = ratios[s][l];
        EXPECT_GE(r, 0.5);
        EXPECT_LE(r, r_max);
        hit_bound = hit_bound || r == 0.5 || r == r_max;
        if (s > 0) {
          const double prev = ratios[s - 1][l];
          EXPECT_LE(r, 1.1 * prev * (1 + 1e-12));
          EXPECT_GE(r, 0.9 * prev * (1 - 1e-12));
          hit_threshold = hit_threshold || std::fabs(r - 1.1 * prev) < 1e-12 ||
                          std::fabs(r - 0.9 * prev) < 1e-12;
        }
      }
    }
    EXPECT_TRUE(hit_bound);  // shrinking: r climbs to r_max; growing: r falls to r_min
    if (scale > 1) {
      EXPECT_TRUE(hit_threshold);  // falling by the 10% threshold a step
    }
  }
}

TEST(Invariants, DetectorDeltaIsCeilOfOneOverOneMinusBeta2) {
  EXPECT_EQ(VarianceFreezeDetector::delta_for(0.999), 1000);
  EXPECT_EQ(VarianceFreezeDetector::delta_for(0.9), 10);
  EXPECT_EQ(VarianceFreezeDetector::delta_for(0.75), 4);
  EXPECT_EQ(VarianceFreezeDetector::delta_for(0.7), 4);  // 3.33 -> 4
  EXPECT_EQ(VarianceFreezeDetector::delta_for(0.0), 1);
}

TEST(Invariants, DetectorFiresOnSyntheticSequenceAtHandComputedStep) {
  // beta2 = 0.75 -> Delta = 4; LR warmup 2 steps; threshold 0.96.
  // Ratios v_t/v_{t-4}: t=5 0.60, 6 0.61, 7 0.65, 8 0.714, 9 0.825, 10 0.891,
  // 11 0.938, 12 4.87/5.0 = 0.974 >= 0.96 -> fires at t = 12.
  const std::vector<double> v = {10, 9, 8, 7, 6, 5.5, 5.2, 5.0, 4.95, 4.9, 4.88, 4.87, 4.86};
  VarianceFreezeDetector det(0.75, 0.96, 2);
  int64_t fired = 0;
  for (size_t i = 0; i < v.size() && !fired; ++i) {
    if (det.observe(static_cast<int64_t>(i + 1), v[i])) fired = static_cast<int64_t>(i + 1);
  }
  EXPECT_EQ(fired, 12);
  EXPECT_NEAR(*det.last_ratio(), 4.87 / 5.0, 1e-12);

  // Growing variance satisfies the ratio at once; the LR warmup (9 steps) holds it back.
  VarianceFreezeDetector held(0.75, 0.96, 9);
  fired = 0;
  for (int64_t t = 1; t <= 20 && !fired; ++t) {
    if (held.observe(t, static_cast<double>(t))) fired = t;
  }
  EXPECT_EQ(fired, 10);
}

// earliest_step() is the first step a sequence that always satisfies the ratio fires at:
// Delta + 1 without LR warmup, the warmup + 1 when it is longer.
TEST(Invariants, DetectorEarliestStepIsWhereAnAlwaysSatisfiedRatioFires) {
  for (const auto& [beta2, warmup, expected] :
       {std::tuple{0.75, int64_t{0}, int64_t{5}}, std::tuple{0.75, int64_t{9}, int64_t{10}},
        std::tuple{0.9, int64_t{3}, int64_t{11}}, std::tuple{0.0, int64_t{0}, int64_t{2}}}) {
    VarianceFreezeDetector det(beta2, 0.96, warmup);
    EXPECT_EQ(det.earliest_step(), expected) << beta2 << " " << warmup;
    int64_t fired = 0;
    for (int64_t t = 1; t <= 50 && !fired; ++t)
      if (det.observe(t, 1.0)) fired = t;  // ratio 1 >= threshold whenever it is defined
    EXPECT_EQ(fired, expected) << beta2 << " " << warmup;
  }
}

TEST(Invariants, OnebitAdamAutoFreezesPastLrWarmupOnAllRanks) {
  // beta2 = 0.75 (Delta 4), LR warmup 6 steps: v grows from 0 so the ratio
  // exceeds 1; the first eligible step is t = 7.
  std::vector<std::vector<Stage>> stages(2);
  run_local(2, [&](Communicator& comm) {
    auto opt = make_optimizer("onebit-adam",
                              {{"beta2", "0.75"},
                               {"schedule", "linear_warmup_step_decay"},
                               {"warmup_steps", "6"},
                               {"lr", "0.01"}},
                              ParamLayout::single(16));
    Vec x = initial_params(16);
    for (int t = 1; t <= 9; ++t) {
      opt->step(x, test_grad(comm.rank(), t, x), comm);
      stages[comm.rank()].push_back(opt->stage());
      if (t >= 5) {
        EXPECT_TRUE(opt->metrics().variance_ratio.has_value() || t > 7);
      }
    }
  });
  for (const auto& s : stages) {
    for (int t = 1; t <= 9; ++t) {
      EXPECT_EQ(s[t - 1], t >= 7 ? Stage::kCompression : Stage::kWarmup) << "after step " << t;
    }
  }
}

}  // namespace
}  // namespace compopt::testing
