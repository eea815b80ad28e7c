// "Train 20 steps on every built backend": every optimizer trains a logistic
// regression for 20 steps on 4 ranks (2 nodes of 2, so the hierarchical schemes
// cross a node boundary) on each in-process backend of the conformance suite,
// and its step records (every column but the clocks) and every rank's final
// parameters equal the Local backend's bit for bit. The backends share the
// collective algorithms (core/comm/collectives/), so only their transports differ;
// the suite's 20-byte ring pieces show that pipelining changes nothing either.
// (mpirun runs the same comparison for MPI: tests/cli/train_processes_cli_test.sh.)

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <mutex>
#include <string>
#include <vector>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "core/tasks/logistic_regression.h"
#include "core/train/local_training.h"
#include "tests/conformance/backends.h"

namespace compopt::testing {
namespace {

constexpr int kRanks = 4;
constexpr int kRanksPerNode = 2;
constexpr int64_t kSteps = 20;

uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }

void expect_same(const StepRecord& a, const StepRecord& b) {
  SCOPED_TRACE("step " + std::to_string(a.step));
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(bits(a.epoch), bits(b.epoch));
  EXPECT_EQ(a.stage, b.stage);
  EXPECT_EQ(bits(a.lr), bits(b.lr));
  EXPECT_EQ(bits(a.train_loss), bits(b.train_loss));
  for (auto [x, y] : {std::pair{a.test_loss, b.test_loss},
                      {a.test_accuracy, b.test_accuracy},
                      {a.var_norm_l2, b.var_norm_l2},
                      {a.var_ratio_l1, b.var_ratio_l1},
                      {a.var_norm_l1, b.var_norm_l1}}) {
    ASSERT_EQ(x.has_value(), y.has_value());
    if (x) {
      EXPECT_EQ(bits(*x), bits(*y));
    }
  }
  EXPECT_EQ(bits(a.bytes_sent), bits(b.bytes_sent));
  EXPECT_EQ(bits(a.bytes_sent_inter_node), bits(b.bytes_sent_inter_node));
  EXPECT_EQ(a.layer_coefficients, b.layer_coefficients);
  EXPECT_EQ(a.layer_ratios, b.layer_ratios);
}

struct Trained {
  std::vector<StepRecord> records;
  std::vector<std::vector<float>> params;  // every rank's, after the last step
};

Trained train_on(const RankLauncher& launch, const std::string& optimizer) {
  const LogisticRegressionTask task(
      {.dimension = 30, .train_size = 2048, .test_size = 64, .separable = false});
  HyperParamMap hp = {{"lr", "0.05"}};
  // The two-stage optimizers switch to compression a quarter of the way in.
  if (optimizer == "onebit-adam" || optimizer == "onebit-adam-32bit" ||
      optimizer == "onebit-lamb") {
    hp["freeze_step"] = "5";
  }
  const OptimizerFactory factory = [&](const ParamLayout& layout) {
    return make_optimizer(optimizer, hp, layout);
  };
  Trained out;
  out.params.resize(kRanks);
  std::mutex mutex;
  TrainHooks hooks;
  hooks.after_step = [&](int rank, int64_t step, std::span<const float> p) {
    if (step != kSteps) return;
    const std::lock_guard lock(mutex);
    out.params[static_cast<size_t>(rank)].assign(p.begin(), p.end());
  };
  const TrainOptions options{.batch_per_rank = 16, .steps = kSteps, .eval_every = 5, .seed = 3};
  out.records = train_with(launch, task, factory, options, hooks).records;
  return out;
}

class TrainConformance : public ::testing::TestWithParam<size_t> {};

TEST_P(TrainConformance, EveryOptimizerTrainsBitForBitAsOnLocal) {
  const ConformanceBackend& backend = conformance_backends()[GetParam()];
  const RankLauncher on_backend = [&](const WorldFn& fn) {
    backend.run(kRanks, kRanksPerNode, fn);
  };
  const RankLauncher on_local = [](const WorldFn& fn) {
    LocalWorld({.ranks = kRanks, .gpus_per_node = kRanksPerNode}).run(fn);
  };
  for (const std::string& optimizer : optimizer_names()) {
    SCOPED_TRACE(optimizer + " on " + backend.name);
    const Trained want = train_on(on_local, optimizer);
    const Trained got = train_on(on_backend, optimizer);
    ASSERT_EQ(got.records.size(), static_cast<size_t>(kSteps));
    ASSERT_EQ(want.records.size(), got.records.size());
    for (size_t i = 0; i < got.records.size(); ++i) expect_same(got.records[i], want.records[i]);
    for (int r = 0; r < kRanks; ++r) {
      const auto& a = got.params[static_cast<size_t>(r)];
      const auto& b = want.params[static_cast<size_t>(r)];
      ASSERT_EQ(a.size(), b.size()) << "rank " << r;
      EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(),
                             [](float x, float y) {
                               return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y);
                             }))
          << "rank " << r << " parameters differ";
    }
    // Training moved the parameters: the comparison is not between two untouched inits.
    EXPECT_NE(got.records.front().train_loss, got.records.back().train_loss);
  }
}

std::string backend_name(const ::testing::TestParamInfo<size_t>& info) {
  return conformance_backends()[info.param].name;
}

std::vector<size_t> backend_indices() {
  std::vector<size_t> out;
  for (size_t b = 0; b < conformance_backends().size(); ++b) out.push_back(b);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Backends, TrainConformance, ::testing::ValuesIn(backend_indices()),
                         backend_name);

}  // namespace
}  // namespace compopt::testing
