#pragma once
// The training run of "train 20 steps on every built backend" (train_test.cc, and
// the MPI driver tests/real_backend/mpi/mpi_train_conformance_test.cc): a logistic
// regression trained for 20 steps on 4 ranks (2 nodes of 2) by one optimizer,
// and the bitwise comparison of two runs' step records (every column but the
// clocks) and every rank's final parameters.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/optim/optimizer_factory.h"
#include "core/tasks/logistic_regression.h"
#include "core/train/local_training.h"
#include "tests/support/same_step_record.h"

namespace compopt::testing {

inline constexpr int kTrainRanks = 4;
inline constexpr int kTrainRanksPerNode = 2;
inline constexpr int64_t kTrainSteps = 20;

struct Trained {
  std::vector<StepRecord> records;         // rank 0's (empty on other launched ranks)
  std::vector<std::vector<float>> params;  // each rank's after the last step (empty if unseen)
};

inline Trained train_reference_run(const RankLauncher& launch, const std::string& optimizer) {
  const LogisticRegressionTask task(
      {.dimension = 30, .train_size = 2048, .test_size = 64, .separable = false});
  HyperParamMap hp = {{"lr", "0.05"}};
  // The two-stage optimizers switch to compression a quarter of the way in.
  if (optimizer == "onebit-adam" || optimizer == "onebit-adam-32bit" ||
      optimizer == "onebit-lamb") {
    hp["freeze_step"] = "5";
  }
  // DiLoCo's outer steps at 10 and 20 (Streaming DiLoCo's fragments every 2 steps).
  if (optimizer == "diloco" || optimizer == "streaming-diloco") hp["inner_steps"] = "10";
  const OptimizerFactory factory = [&](const ParamLayout& layout) {
    return make_optimizer(optimizer, hp, layout);
  };
  Trained out;
  out.params.resize(kTrainRanks);
  std::mutex mutex;
  TrainHooks hooks;
  hooks.after_step = [&](int rank, int64_t step, std::span<const float> p) {
    if (step != kTrainSteps) return;
    const std::lock_guard lock(mutex);
    out.params[static_cast<size_t>(rank)].assign(p.begin(), p.end());
  };
  const TrainOptions options{
      .batch_per_rank = 16, .steps = kTrainSteps, .eval_every = 5, .seed = 3};
  out.records = train_with(launch, task, factory, options, hooks).records;
  return out;
}

// Bitwise, every field but time_s and the measured wall-clock split.
inline void expect_same_record(const StepRecord& a, const StepRecord& b) {
  SCOPED_TRACE("step " + std::to_string(a.step));
  testing_support::expect_same_math(a, b);
}

inline void expect_same_records(const std::vector<StepRecord>& got,
                                const std::vector<StepRecord>& want) {
  ASSERT_EQ(got.size(), static_cast<size_t>(kTrainSteps));
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i) expect_same_record(got[i], want[i]);
  // Training moved the parameters: the comparison is not between two untouched inits.
  EXPECT_NE(got.front().train_loss, got.back().train_loss);
}

inline void expect_same_params(const std::vector<float>& got, const std::vector<float>& want,
                               int rank) {
  ASSERT_EQ(got.size(), want.size()) << "rank " << rank;
  EXPECT_TRUE(std::equal(
      got.begin(), got.end(), want.begin(),
      [](float x, float y) { return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y); }))
      << "rank " << rank << " parameters differ";
}

}  // namespace compopt::testing
