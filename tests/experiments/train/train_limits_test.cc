// check_train_limits(): run lengths beyond 10^9 steps and runs whose ranks would not fit the
// memory budget are refused naming the key; a small run passes.

#include "experiments/train/train_limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

TrainConfig quadratic(const std::vector<std::string>& extra) {
  std::vector<std::string> sets = {"task.name=quadratic", "task.dimension=1000", "run.ranks=2",
                                   "run.steps=10"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return load_train_config("", sets);
}

std::string error_of(const TrainConfig& c, const MemoryBudget& budget) {
  try {
    check_train_limits(c, budget);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

const MemoryBudget kOneMiB(uint64_t{1} << 20, "COMPOPT_MEMORY_LIMIT_MB");

TEST(TrainLimits, SmallRunFits) {
  // 2 ranks x 1000 parameters x (2 + 3 adam + 3) vectors x 4 B = 64000 B < 1 MiB.
  EXPECT_EQ(error_of(quadratic({}), kOneMiB), "");
}

TEST(TrainLimits, RefusesRunsThatExceedTheBudgetNamingRanks) {
  // 64 ranks x 1000 x 8 x 4 B = 2048000 B > 1 MiB; with sgd (1 state vector) 1536000 B.
  EXPECT_THAT(error_of(quadratic({"run.ranks=64"}), kOneMiB),
              HasSubstr("run.ranks = 64 ranks x 1000 parameters (adam: 8 float vectors"));
  EXPECT_THAT(error_of(quadratic({"run.ranks=64", "optimizer.name=sgd"}), kOneMiB),
              HasSubstr("(sgd: 6 float vectors per rank) needs about 1 MiB"));
  EXPECT_EQ(error_of(quadratic({"run.ranks=32", "optimizer.name=sgd"}), kOneMiB), "");
}

TEST(TrainLimits, RefusesRunLengthsBeyondTheLimit) {
  TrainConfig c = quadratic({});
  c.steps = kMaxTrainSteps + 1;
  EXPECT_THAT(error_of(c, kOneMiB), HasSubstr("config key 'run.steps': 1000000001 steps"));
  c.values.erase("run.steps");
  EXPECT_THAT(error_of(c, kOneMiB), HasSubstr("config key 'run.epochs'"));
  c.steps = 10;
  c.eval_every = kMaxTrainSteps + 1;
  EXPECT_THAT(error_of(c, kOneMiB), HasSubstr("run.eval_every"));
}

}  // namespace
}  // namespace compopt::cli
