// 0/1 Adam: its schedule against hand-derived step sets, its update against a scalar reference
// written from [01A] Alg. 1 / DeepSpeed's ZeroOneAdam (docs/algorithms.md) on 1, 2 and 4 ranks,
// its limits against Adam and 1-bit Adam (32-bit), rank agreement at the syncs, the registry's
// stage period at DeepSpeed's defaults, and its refusals of bad keys and checkpoints.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <mutex>
#include <set>

#include "core/optim/optimizer_registry.h"
#include "core/optim/zero_one_adam_schedule.h"
#include "tests/core/optim/optim_test_util.h"

namespace compopt::testing {
namespace {

using ::testing::HasSubstr;

// Steps 1..last at which `schedule` updates the variance (before the freeze) or syncs (after).
std::set<int64_t> steps_where(const ZeroOneAdamScheduleKeys& keys, int64_t last, bool syncs) {
  ZeroOneAdamSchedule s(keys);
  std::set<int64_t> out;
  for (int64_t t = 1; t <= last; ++t) {
    if (s.frozen(t) == syncs && (syncs ? s.sync_step(t) : s.variance_step(t))) out.insert(t);
    s.advance(t);
  }
  return out;
}

// var_freeze_step 40, 4 updates per interval, the sync interval doubling every 3 steps up to 4.
// Variance at the multiples of the interval: 1 at 1-4, 2 at 6-12, 4 at 16-28, 8 at 32 and 40.
// Syncs: interval 1 at
// 41-43, 2 at 44 and 46, then 4 from step 47 on: 48, 52, 56, 60.
TEST(ZeroOneAdamSchedule, MatchesTheHandDerivedSteps) {
  const ZeroOneAdamScheduleKeys keys{40, 4, 3, 4};
  EXPECT_EQ(steps_where(keys, 60, false),
            (std::set<int64_t>{1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 28, 32, 40}));
  EXPECT_EQ(steps_where(keys, 60, true), (std::set<int64_t>{41, 42, 43, 44, 46, 48, 52, 56, 60}));
  // The run that reaches the cap: 40 + 2 x 3 steps; 26 compressed steps, 5 syncs in 41-46.
  const ZeroOneAdamRunCounts n = zero_one_adam_run_counts(keys);
  EXPECT_EQ(n.variance_steps, 14);
  EXPECT_EQ(n.compressed_steps, 26);
  EXPECT_EQ(n.local_steps, 6);
  EXPECT_EQ(n.syncs, 5);
}

// DeepSpeed's defaults (100000, 16, 32678, 16): interval 2^k holds 16 variance updates at its
// multiples; intervals 1, 2, 4, 8 end at 16, 48, 112, 240, and from 16 on each starts at the
// next multiple of 2^k: 16 x 2^k .. 31 x 2^k (interval 2048 ends at 63488); interval 4096 adds
// 65536 + 4096 i for i = 0..8 (<= 100000): 12 x 16 + 9 = 201 variance steps, 99799 compressed.
// After the freeze, 32678 steps each at intervals 1, 2, 4 and 8 sync 32678 + 16339 + 8169 +
// 4085 = 61271 times (the multiples of the interval in each block), so
// period = (99799 + 130712) / (99799 + 61271).
TEST(ZeroOneAdamSchedule, RegistryPeriodIsTheMeanOverDeepSpeedsDefaultSchedule) {
  const ZeroOneAdamRunCounts n = zero_one_adam_run_counts(ZeroOneAdamScheduleKeys{});
  EXPECT_EQ(n.variance_steps, 201);
  EXPECT_EQ(n.compressed_steps, 99799);
  EXPECT_EQ(n.local_steps, 130712);
  EXPECT_EQ(n.syncs, 61271);
  const OptimizerEntry& e = optimizer_registry().get("zero-one-adam");
  ASSERT_EQ(e.stages.size(), 2u);
  EXPECT_EQ(e.stages[0].name, "warmup");
  EXPECT_EQ(e.stages[1].name, "compression");
  EXPECT_DOUBLE_EQ(e.stages[1].period, 230511.0 / 161070.0);
  // Step bytes: 36 per compressed-gradient step, 28 per step after the freeze, 40 per sync,
  // over Adam's 48 per step.
  EXPECT_DOUBLE_EQ(e.stages[1].step_bytes_ratio,
                   (36.0 * 99799 + 28.0 * 130712 + 40.0 * 61271) / (48.0 * 230511));
  EXPECT_EQ(e.baseline, "adam");
  EXPECT_EQ(&optimizer_registry().get("zoadam"), &e);
}

constexpr size_t kD = 37;  // not a multiple of the chunking unit: padding is exercised
constexpr int kSteps = 14;
constexpr double kLr = 0.05, kWd = 0.01, kB1 = 0.9, kB2 = 0.99, kEps = 1e-8;

// Keys of the reference case; by hand (as in the test above): variance steps 1, 2, 4, 6;
// compressed-gradient steps 3, 5; frozen from 7; syncs 7, 8 (interval 2 from 9), 10 (interval 4
// from 11), 12; local steps 9, 11, 13, 14.
const HyperParamMap kKeys = {{"lr", "0.05"},
                             {"beta2", "0.99"},
                             {"weight_decay", "0.01"},
                             {"var_freeze_step", "6"},
                             {"var_update_scaler", "2"},
                             {"local_step_scaler", "2"},
                             {"local_step_clipper", "4"}};
const std::set<int64_t> kVarianceSteps = {1, 2, 4, 6}, kSyncs = {7, 8, 10, 12};

// Scalar re-implementation: per-rank x and m, shared v, a fresh reference compressed allreduce
// at the freeze.
std::vector<std::vector<Vec>> reference(int n, bool identity) {
  std::vector<Vec> x(n, initial_params(kD)), m(n, Vec(kD, 0.0f));
  Vec v(kD, 0.0f), anchor;
  RefCompressedAllreduce car(kD, n, identity);
  double lr_sum = 0;
  std::vector<std::vector<Vec>> out{x};
  const auto denom = [&](size_t j) { return std::sqrt(static_cast<double>(v[j])) + kEps; };
  const auto apply = [&](int i) {
    for (size_t j = 0; j < kD; ++j) {
      x[i][j] = static_cast<float>(x[i][j] - kLr * (m[i][j] / denom(j) + kWd * x[i][j]));
    }
  };
  for (int64_t t = 1; t <= kSteps; ++t) {
    std::vector<Vec> g(n);
    for (int i = 0; i < n; ++i) g[i] = test_grad(i, t, x[i]);
    if (t <= 6) {
      const Vec gm = kVarianceSteps.count(t) ? mean_over(g) : car.run(g);
      for (int i = 0; i < n; ++i) {
        for (size_t j = 0; j < kD; ++j)
          m[i][j] = static_cast<float>(kB1 * m[i][j] + (1 - kB1) * gm[j]);
      }
      if (kVarianceSteps.count(t)) {
        for (size_t j = 0; j < kD; ++j)
          v[j] = static_cast<float>(kB2 * v[j] + (1 - kB2) * gm[j] * gm[j]);
      }
      for (int i = 0; i < n; ++i) apply(i);
      if (t == 6) {
        anchor = x[0];
        car = RefCompressedAllreduce(kD, n, identity);
      }
    } else {
      for (int i = 0; i < n; ++i) {
        for (size_t j = 0; j < kD; ++j)
          m[i][j] = static_cast<float>(kB1 * m[i][j] + (1 - kB1) * g[i][j]);
        apply(i);
      }
      lr_sum += kLr;
      if (kSyncs.count(t)) {
        std::vector<Vec> acc(n, Vec(kD));
        for (int i = 0; i < n; ++i) {
          for (size_t j = 0; j < kD; ++j)
            acc[i][j] = static_cast<float>((x[i][j] - anchor[j]) * denom(j));
        }
        const Vec u = car.run(acc);
        for (size_t j = 0; j < kD; ++j) anchor[j] = static_cast<float>(anchor[j] + u[j] / denom(j));
        for (int i = 0; i < n; ++i) {
          x[i] = anchor;
          for (size_t j = 0; j < kD; ++j) m[i][j] = static_cast<float>(-u[j] / lr_sum);
        }
        lr_sum = 0;
      }
    }
    out.push_back(x);
  }
  return out;
}

class ZeroOneAdamReference : public ::testing::TestWithParam<int> {};

TEST_P(ZeroOneAdamReference, MatchesTheScalarReference) {
  const int n = GetParam();
  for (const bool identity : {false, true}) {
    SCOPED_TRACE(identity ? "identity" : "sign");
    HyperParamMap keys = kKeys;
    keys["compressor"] = identity ? "identity" : "sign";
    const History got =
        run_optimizer({"zero-one-adam", keys, ParamLayout::single(kD), n, 0, kSteps});
    const auto want = reference(n, identity);
    for (int s = 0; s <= kSteps; ++s) {
      for (int r = 0; r < n; ++r) {
        for (size_t j = 0; j < kD; ++j) {
          const double w = want[s][r][j];
          ASSERT_NEAR(got[s][r][j], w, 2e-5 * (1.0 + std::fabs(w)))
              << "step " << s << " rank " << r << " element " << j;
        }
      }
    }
  }
}

// Ranks agree bit for bit after every step before the freeze and after every sync, and differ
// after the local steps (each follows its own gradient).
TEST_P(ZeroOneAdamReference, RanksAgreeExactlyAtSyncsOnly) {
  const int n = GetParam();
  const History got =
      run_optimizer({"zero-one-adam", kKeys, ParamLayout::single(kD), n, 0, kSteps});
  for (int s = 1; s <= kSteps; ++s) {
    const bool shared = s <= 6 || kSyncs.count(s);
    bool all_equal = true;
    for (int r = 1; r < n; ++r) {
      all_equal &= std::memcmp(got[s][r].data(), got[s][0].data(), kD * sizeof(float)) == 0;
    }
    EXPECT_EQ(all_equal, shared || n == 1) << "step " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, ZeroOneAdamReference, ::testing::Values(1, 2, 4));

// Every step a variance step (one interval holds them all): Adam without bias correction.
TEST(ZeroOneAdam, WithoutCompressedStepsIsBertAdamBitForBit) {
  const HyperParamMap adam = {{"lr", "0.05"}, {"beta2", "0.99"}, {"weight_decay", "0.01"}};
  HyperParamMap zoadam = adam;
  zoadam["var_update_scaler"] = "1000";
  const History want = run_optimizer({"bertadam", adam, ParamLayout::single(kD), 2, 0, 10});
  const History got = run_optimizer({"zero-one-adam", zoadam, ParamLayout::single(kD), 2, 0, 10});
  for (int s = 1; s <= 10; ++s) {
    for (int r = 0; r < 2; ++r) {
      ASSERT_EQ(0, std::memcmp(got[s][r].data(), want[s][r].data(), kD * sizeof(float)))
          << "step " << s << " rank " << r;
    }
  }
}

// Syncing every step with an exact average is 1-bit Adam's 32-bit ablation (the average of the
// momenta), up to rounding: x_a + mean(x_i - x_a) and -mean(lr m_i) / lr.
TEST(ZeroOneAdam, SyncingEveryStepUncompressedIsOneBitAdam32Bit) {
  const HyperParamMap common = {{"lr", "0.05"}, {"beta2", "0.99"}};
  HyperParamMap onebit = common, zoadam = common;
  onebit["freeze_step"] = "4";
  zoadam.insert({{"var_freeze_step", "4"},
                 {"var_update_scaler", "1000"},
                 {"local_step_clipper", "1"},
                 {"compressor", "identity"}});
  const History want =
      run_optimizer({"onebit-adam-32bit", onebit, ParamLayout::single(kD), 4, 0, 12});
  const History got = run_optimizer({"zero-one-adam", zoadam, ParamLayout::single(kD), 4, 0, 12});
  for (int s = 1; s <= 12; ++s) {
    for (int r = 0; r < 4; ++r) {
      for (size_t j = 0; j < kD; ++j) {
        ASSERT_NEAR(got[s][r][j], want[s][r][j], 1e-5) << "step " << s << " rank " << r;
      }
    }
  }
}

std::string build_error(const HyperParamMap& keys) {
  try {
    make_optimizer("zero-one-adam", keys, ParamLayout::single(4));
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}

TEST(ZeroOneAdam, BadKeysNameTheKeyAndTheRange) {
  EXPECT_THAT(build_error({{"var_freeze_step", "0"}}),
              HasSubstr("key 'var_freeze_step' = 0, expected an integer >= 1"));
  EXPECT_THAT(build_error({{"local_step_clipper", "two"}}), HasSubstr("local_step_clipper"));
  EXPECT_THAT(build_error({{"local_step_scaler", "1.5"}}), HasSubstr("local_step_scaler"));
  EXPECT_THAT(build_error({{"var_update_scaler", "-3"}}), HasSubstr("var_update_scaler"));
  EXPECT_THAT(build_error({{"beta1", "1"}}), HasSubstr("beta1"));
  EXPECT_THAT(build_error({{"compressor", "topk:0.1"}}), HasSubstr("key 'compressor'"));
  EXPECT_THAT(build_error({{"freeze_step", "5"}}), HasSubstr("freeze_step"));
}

// A checkpoint carries the phase it was written in: loading it with another var_freeze_step
// that puts it in the other phase is refused.
TEST(ZeroOneAdam, CheckpointOfTheOtherPhaseIsRefused) {
  std::vector<std::byte> blob;
  run_local(1, [&](Communicator& comm) {
    auto opt = make_optimizer("zero-one-adam", {{"var_freeze_step", "2"}}, ParamLayout::single(4));
    Vec x = initial_params(4);
    for (int t = 1; t <= 3; ++t) opt->step(x, test_grad(0, t, x), comm);
    blob = opt->save_bytes();
  });
  auto later = make_optimizer("zero-one-adam", {{"var_freeze_step", "5"}}, ParamLayout::single(4));
  try {
    later->load_bytes(blob);
    FAIL() << "loaded";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("var_freeze_step = 5"));
  }
}

}  // namespace
}  // namespace compopt::testing
