#include "core/train/train_loop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <mutex>
#include <set>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "core/tasks/logistic_regression.h"
#include "core/tasks/noisy_quadratic.h"
#include "core/train/local_training.h"
#include "core/util/error.h"
#include "sim/backend/sim_world.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

OptimizerFactory factory(const std::string& name, HyperParamMap params = {}) {
  return [name, params](const ParamLayout& layout) { return make_optimizer(name, params, layout); };
}

// A task that records the batches each rank draws and can poison one gradient.
class RecordingTask final : public Task {
 public:
  RecordingTask(size_t n, int nan_rank, int64_t nan_call)
      : n_(n), nan_rank_(nan_rank), nan_call_(nan_call) {
    layout_ = ParamLayout::from_sizes({{"a", 3}, {"b", 2}});
  }
  std::string name() const override { return "recording"; }
  std::string describe() const override { return "recording"; }
  const ParamLayout& layout() const override { return layout_; }
  std::vector<float> init_params(uint64_t) const override { return std::vector<float>(5, 1.0f); }
  size_t train_size() const override { return n_; }
  size_t test_size() const override { return 10; }
  bool has_accuracy() const override { return false; }
  TaskFlops flops() const override { return {}; }
  std::unique_ptr<TaskWorker> make_worker(int rank) const override {
    return std::make_unique<Worker>(*this, rank);
  }
  mutable std::mutex mutex;
  mutable std::map<int, std::vector<std::vector<size_t>>> batches;

 private:
  class Worker final : public TaskWorker {
   public:
    Worker(const RecordingTask& t, int rank) : t_(t), rank_(rank) {}
    double loss_and_grad(std::span<const float> p, std::span<const size_t> batch,
                         std::span<float> g) override {
      {
        std::lock_guard lock(t_.mutex);
        t_.batches[rank_].emplace_back(batch.begin(), batch.end());
      }
      ++calls_;
      for (size_t j = 0; j < g.size(); ++j) g[j] = p[j] * 0.1f + static_cast<float>(rank_);
      if (rank_ == t_.nan_rank_ && calls_ == t_.nan_call_) g[4] = std::nanf("");
      return static_cast<double>(rank_);
    }
    EvalSums evaluate(std::span<const float>, size_t begin, size_t end) override {
      return {.loss_sum = static_cast<double>(end - begin),
              .correct = 0,
              .count = static_cast<double>(end - begin)};
    }

   private:
    const RecordingTask& t_;
    int rank_;
    int64_t calls_ = 0;
  };
  size_t n_;
  int nan_rank_;
  int64_t nan_call_;
  ParamLayout layout_;
};

TEST(TrainLoop, GlobalBatchShardsRecordsAndTrafficExcludeMetrics) {
  RecordingTask task(1000, -1, -1);
  const TrainOptions options{.batch_per_rank = 8, .steps = 40, .eval_every = 0, .seed = 3};
  const TrainResult result =
      train_local(task, factory("sgd", {{"lr", "0.1"}}), options, {.ranks = 4});
  ASSERT_EQ(result.records.size(), 40u);
  std::set<size_t> all;
  for (int r = 0; r < 4; ++r) {
    ASSERT_EQ(task.batches[r].size(), 40u);
    std::set<size_t> mine, first_epoch;
    for (size_t i = 0; i < task.batches[r].size(); ++i) {
      const auto& b = task.batches[r][i];
      EXPECT_EQ(b.size(), 8u);
      mine.insert(b.begin(), b.end());
      if (i < 31) first_epoch.insert(b.begin(), b.end());
    }
    // Shard of 1000/4 = 250 examples, 31 batches of 8 per epoch without repeats.
    EXPECT_EQ(first_epoch.size(), 248u);
    EXPECT_LE(mine.size(), 250u);
    for (const size_t k : mine) EXPECT_TRUE(all.insert(k).second) << "shards overlap at " << k;
  }
  for (size_t i = 0; i < result.records.size(); ++i) {
    const StepRecord& r = result.records[i];
    EXPECT_EQ(r.step, static_cast<int64_t>(i + 1));
    EXPECT_EQ(r.samples, r.step * 4 * 8);
    EXPECT_DOUBLE_EQ(r.epoch, r.step / 31.0);
    EXPECT_DOUBLE_EQ(r.train_loss, 1.5);  // mean of the ranks' losses 0, 1, 2, 3
    EXPECT_EQ(r.stage, "full_precision");
    // Test evaluation at the end of each epoch (31) and at the last step (40).
    EXPECT_EQ(r.test_loss.has_value(), r.step == 31 || r.step == 40) << r.step;
    EXPECT_FALSE(r.test_accuracy.has_value());
    // SGD: one fp32 ring allreduce of 5 floats per step, 2(n-1)/n * 4 * 5 bytes; the
    // loss/eval allreduces and the byte-count allgather are not counted.
    EXPECT_DOUBLE_EQ(r.bytes_sent, r.step * 2.0 * 3 / 4 * 4 * 5) << r.step;
  }
  EXPECT_DOUBLE_EQ(*result.records.back().test_loss, 1.0);
}

TEST(TrainLoop, NonFiniteGradientNamesStepAndRank) {
  RecordingTask task(1000, 2, 3);
  const TrainOptions options{.batch_per_rank = 4, .steps = 10, .eval_every = 0, .seed = 1};
  try {
    train_local(task, factory("adam"), options, {.ranks = 4});
    FAIL() << "expected NonFiniteGradient";
  } catch (const NonFiniteGradient& e) {
    EXPECT_THAT(e.what(), HasSubstr("step 3"));
    EXPECT_THAT(e.what(), HasSubstr("rank 2"));
    EXPECT_THAT(e.what(), HasSubstr("(b)"));
  }
}

class BitIdentical : public ::testing::TestWithParam<std::string> {};

TEST_P(BitIdentical, AllRanksHoldTheSameParamsAfterEveryStep) {
  LogisticRegressionTask task(
      {.dimension = 30, .train_size = 2048, .test_size = 64, .separable = false});
  HyperParamMap hp = {{"lr", "0.05"}};
  if (GetParam() == "onebit-adam" || GetParam() == "onebit-lamb") hp["freeze_step"] = "5";
  std::mutex mutex;
  std::map<int64_t, std::vector<std::vector<float>>> by_step;
  TrainHooks hooks;
  hooks.after_step = [&](int, int64_t step, std::span<const float> p) {
    std::lock_guard lock(mutex);
    by_step[step].emplace_back(p.begin(), p.end());
  };
  const int ranks = 4;
  train_local(task, factory(GetParam(), hp),
              {.batch_per_rank = 16, .steps = 12, .eval_every = 4, .seed = 2},
              {.ranks = ranks, .gpus_per_node = 2}, hooks);
  ASSERT_EQ(by_step.size(), 12u);
  for (const auto& [step, params] : by_step) {
    ASSERT_EQ(params.size(), static_cast<size_t>(ranks));
    for (const auto& p : params) ASSERT_EQ(p, params[0]) << GetParam() << " step " << step;
  }
}

INSTANTIATE_TEST_SUITE_P(Optimizers, BitIdentical,
                         ::testing::Values("adam", "onebit-adam", "onebit-lamb", "birder",
                                           "birder-hierarchical", "momentum-sgd"));

TEST(TrainLoop, QuadraticConverges) {
  NoisyQuadraticTask task({.dimension = 100,
                           .condition_number = 10,
                           .noise = 0.5,
                           .heterogeneity = 0.2,
                           .ranks = 4,
                           .train_size = 1 << 16,
                           .seed = 1});
  const TrainResult result =
      train_local(task, factory("adam", {{"lr", "0.02"}}),
                  {.batch_per_rank = 8, .steps = 600, .eval_every = 100, .seed = 1}, {.ranks = 4});
  const double first = *result.records[99].test_loss;
  const double last = *result.records.back().test_loss;
  const std::vector<float> x0 = task.init_params(1);
  double initial = 0;
  for (size_t j = 0; j < 100; ++j) {
    initial +=
        0.5 * task.curvatures()[j] * (x0[j] - task.optimum()[j]) * (x0[j] - task.optimum()[j]);
  }
  EXPECT_LT(first, initial);
  EXPECT_LT(last, 0.02 * initial) << "initial " << initial << " after 100 steps " << first;
}

TEST(TrainLoop, SameSeedSameRun) {
  LogisticRegressionTask task({.dimension = 8, .train_size = 512, .test_size = 64});
  const TrainOptions o{.batch_per_rank = 8, .steps = 20, .eval_every = 10, .seed = 9};
  const auto a = train_local(task, factory("adam"), o, {.ranks = 2});
  const auto b = train_local(task, factory("adam"), o, {.ranks = 2});
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(*a.records.back().test_accuracy, *b.records.back().test_accuracy);
}

TEST(TrainLoop, RejectsBadOptions) {
  LogisticRegressionTask task({.dimension = 8, .train_size = 64, .test_size = 8});
  EXPECT_THROW(train_local(task, factory("sgd"), {.batch_per_rank = 8, .steps = 0}, {.ranks = 2}),
               InvalidArgument);
  EXPECT_THROW(train_local(task, factory("sgd"), {.batch_per_rank = 64, .steps = 1}, {.ranks = 2}),
               InvalidArgument);
}

// One simulated rank sends nothing, so its clock moves only by the modeled charge:
// pass + step per step, plus compression once 1-bit Adam compresses (after step 3).
TEST(TrainLoop, ModeledComputeChargeMovesTheSimulatedClock) {
  LogisticRegressionTask task({.dimension = 8, .train_size = 256, .test_size = 16});
  TrainOptions o{.batch_per_rank = 8, .steps = 6, .eval_every = 3, .seed = 2};
  o.compute = ComputeCharge{.pass_s = 1e-3, .step_s = 2e-4, .compression_s = 5e-4};
  std::vector<std::pair<int64_t, Stage>> stages;
  TrainHooks hooks;
  hooks.before_step = [&](Communicator&, Stage stage) {
    stages.emplace_back(static_cast<int64_t>(stages.size()) + 1, stage);
  };
  const RankLauncher launch = [](const std::function<void(Communicator&)>& fn) {
    sim::run_sim(net::ClusterSpec{}, 1, 1, fn);
  };
  const auto result =
      train_with(launch, task, factory("onebit-adam", {{"freeze_step", "3"}}), o, hooks);
  ASSERT_EQ(result.records.size(), 6u);
  ASSERT_EQ(stages.size(), 6u);
  double before = 0;
  for (const StepRecord& r : result.records) {
    const bool compressing = r.stage == "compression";
    EXPECT_EQ(compressing, r.step > 3) << "step " << r.step;
    EXPECT_EQ(stages[static_cast<size_t>(r.step - 1)].second == Stage::kCompression, compressing);
    EXPECT_NEAR(r.time_s - before, compressing ? 1.7e-3 : 1.2e-3, 1e-12) << "step " << r.step;
    before = r.time_s;
  }
}

TEST(TrainLoop, RejectsABadComputeCharge) {
  LogisticRegressionTask task({.dimension = 8, .train_size = 64, .test_size = 8});
  for (const ComputeCharge bad : {ComputeCharge{.pass_s = -1}, ComputeCharge{.step_s = NAN},
                                  ComputeCharge{.compression_s = INFINITY}}) {
    TrainOptions o{.batch_per_rank = 8, .steps = 1};
    o.compute = bad;
    EXPECT_THAT([&] { train_local(task, factory("sgd"), o, {.ranks = 1}); },
                ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("compute charge")));
  }
}

// The measured split: warmup steps of 1-bit Adam run no compressed allreduce, so
// their compression time is exactly 0; compression steps encode and decode, so
// theirs is > 0; and the parts of a step fit inside its wall time.
TEST(TrainLoop, StepsRecordTheirMeasuredWallClockSplit) {
  LogisticRegressionTask task({.dimension = 2000, .train_size = 1024, .test_size = 64});
  const TrainResult result =
      train_local(task, factory("onebit-adam", {{"freeze_step", "3"}}),
                  {.batch_per_rank = 8, .steps = 8, .seed = 2}, {.ranks = 4});
  ASSERT_EQ(result.records.size(), 8u);
  for (const StepRecord& r : result.records) {
    SCOPED_TRACE("step " + std::to_string(r.step));
    EXPECT_GT(r.compute_s, 0.0);
    EXPECT_GE(r.comm_s, 0.0);
    if (r.stage == "compression") {
      EXPECT_GT(r.compression_s, 0.0);
    } else {
      EXPECT_EQ(r.compression_s, 0.0);
    }
    EXPECT_GE(r.step_wall_s, r.compute_s + r.comm_s + r.compression_s);
  }
  EXPECT_EQ(result.records[2].stage, "warmup");
  EXPECT_EQ(result.records[3].stage, "compression");
}

}  // namespace
}  // namespace compopt
