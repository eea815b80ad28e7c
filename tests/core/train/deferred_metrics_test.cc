// Batched metric collectives (TrainOptions::metrics_every, core/train/deferred_metrics.h): the
// ring mean they compute equals the fp32 ring allreduce's, and a run with batched metrics gives
// the records of a run with per-step ones, bit for bit, in step order, each by the next
// evaluation, checkpoint or K-th step.
#include "core/train/deferred_metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <random>
#include <vector>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "core/tasks/logistic_regression.h"
#include "core/train/local_training.h"
#include "core/util/error.h"
#include "tests/support/same_step_record.h"

namespace compopt {
namespace {

TEST(RingMeanOfOne, EqualsTheRingAllreduceMean) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (int n = 1; n <= 7; ++n) {
    for (int trial = 0; trial < 20; ++trial) {
      // Magnitudes far apart, so the order of the additions shows in the result.
      std::vector<float> values(static_cast<size_t>(n));
      for (float& v : values) v = std::ldexp(mantissa(gen), exponent(gen));
      std::vector<float> got(static_cast<size_t>(n));
      run_local(n, [&](Communicator& comm) {
        float x = values[static_cast<size_t>(comm.rank())];
        comm.allreduce(std::span<float>(&x, 1), ReduceOp::kMean);
        got[static_cast<size_t>(comm.rank())] = x;
      });
      for (const float g : got) EXPECT_EQ(g, ring_mean_of_one(values)) << "n=" << n;
    }
  }
}

TEST(RingMeanOfOne, AddsInRingOrderFromRankOne) {
  // Ranks 1, 2, 0: (1e8 + -1e8) + 1 = 1, then / 3; in rank order (1 + 1e8) + -1e8 would be 0.
  EXPECT_EQ(ring_mean_of_one(std::vector<float>{1.0f, 1e8f, -1e8f}), 1.0f / 3.0f);
  EXPECT_EQ(ring_mean_of_one(std::vector<float>{2.5f}), 2.5f);
}

TEST(StepMeans, AveragesEachCounterOverRanks) {
  const StepMeans m = step_means(0.5f, std::vector<uint64_t>{10, 1, 20, 2, 33, 0});
  EXPECT_EQ(m.train_loss, 0.5f);
  EXPECT_EQ(m.bytes_sent, 21.0);  // (10 + 20 + 33) / 3
  EXPECT_EQ(m.bytes_sent_inter_node, 1.0);
}

OptimizerFactory adam() {
  return [](const ParamLayout& layout) {
    return make_optimizer("onebit-adam", {{"lr", "0.01"}, {"freeze_step", "6"}}, layout);
  };
}

TEST(TrainLoopMetricsEvery, GivesThePerStepRecordsInOrder) {
  LogisticRegressionTask task({.dimension = 8, .train_size = 512, .test_size = 64});
  TrainOptions options{.batch_per_rank = 8, .steps = 37, .eval_every = 10, .seed = 4};
  const TrainResult per_step = train_local(task, adam(), options, {.ranks = 3});
  ASSERT_EQ(per_step.records.size(), 37u);
  for (const int64_t every : {int64_t{4}, int64_t{50}}) {
    options.metrics_every = every;
    options.checkpoint_every = 7;
    std::mutex mutex;
    std::vector<int64_t> delivered_after;  // the step after which each record arrived
    int64_t last_step = 0;
    TrainHooks hooks;
    hooks.after_step = [&](int rank, int64_t step, std::span<const float>) {
      if (rank == 0) last_step = step;
    };
    hooks.on_record = [&](const StepRecord&) {
      std::lock_guard lock(mutex);
      delivered_after.push_back(last_step);
    };
    CheckpointOptions checkpoints;
    checkpoints.write = [](Checkpoint&) {};
    const TrainResult batched =
        train_local(task, adam(), options, {.ranks = 3}, hooks, checkpoints);
    ASSERT_EQ(batched.records.size(), per_step.records.size()) << every;
    for (size_t i = 0; i < batched.records.size(); ++i) {
      EXPECT_EQ(batched.records[i].step, static_cast<int64_t>(i + 1));
      testing_support::expect_same_math(batched.records[i], per_step.records[i]);
    }
    EXPECT_EQ(batched.params, per_step.params);
    // Each record arrives after the first step >= its own that is a multiple of `every`, an
    // evaluation (10, 20, 30, 37) or a checkpoint (7, 14, ...).
    ASSERT_EQ(delivered_after.size(), 37u);
    for (int64_t s = 1; s <= 37; ++s) {
      int64_t flush = s;
      while (flush % every != 0 && flush % 10 != 0 && flush % 7 != 0 && flush != 37) ++flush;
      EXPECT_EQ(delivered_after[static_cast<size_t>(s - 1)], flush) << "every " << every;
    }
  }
}

TEST(TrainLoopMetricsEvery, RejectsZero) {
  LogisticRegressionTask task({.dimension = 8, .train_size = 64, .test_size = 8});
  EXPECT_THROW(train_local(task, adam(), {.batch_per_rank = 8, .steps = 2, .metrics_every = 0},
                           {.ranks = 2}),
               InvalidArgument);
}

}  // namespace
}  // namespace compopt
