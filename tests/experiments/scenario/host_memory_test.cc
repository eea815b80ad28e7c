// Peak-memory estimates of the commands, against byte counts derived by hand from the
// vectors each rank holds, and the checks that refuse what exceeds a MemoryBudget.

#include "experiments/scenario/host_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string error_of(const std::function<void()>& fn) {
  return testing_support::invalid_argument_message(fn);
}

TEST(MemoryEstimates, OptimizerStateCountsEachVectorAndErrorFeedback) {
  EXPECT_EQ(optimizer_state_vectors("sgd"), 1);          // gradient copy
  EXPECT_EQ(optimizer_state_vectors("adam"), 3);         // m, v, gradient copy
  EXPECT_EQ(optimizer_state_vectors("onebit-adam"), 5);  // + worker and server error feedback
  EXPECT_EQ(optimizer_state_vectors("onebit-lamb"), 7);
  EXPECT_EQ(optimizer_state_vectors("birder"), 6);
  EXPECT_EQ(optimizer_state_vectors("an-optimizer-added-later"), 7);  // the largest: upper bound
}

TEST(MemoryEstimates, TrainCountsEveryRanksVectors) {
  // 1000 parameters, 2 ranks, adam: (params + grads + 3 state + 3 transients) x 4 B x 2.
  EXPECT_DOUBLE_EQ(train_peak_bytes(2, 1000, "adam"), 2 * 1000 * 4.0 * 8);
  // The 784-16384-4096-10 MLP of fashion-mnist on 16 ranks: 80,015,370 parameters.
  const size_t mlp = 784 * 16384 + 16384 + 16384 * 4096 + 4096 + 4096 * 10 + 10;
  ASSERT_EQ(mlp, 80015370u);
  EXPECT_NEAR(train_peak_bytes(16, mlp, "adam") / kGiB, 38.15, 0.01);
  EXPECT_DOUBLE_EQ(train_peak_bytes(16, mlp, "onebit-adam"),
                   train_peak_bytes(16, mlp, "adam") * 10 / 8);
}

TEST(MemoryEstimates, CommBenchUsesTheCostliestVariantAndLargestSize) {
  EXPECT_DOUBLE_EQ(comm_bench_peak_bytes(4, 100, {"allreduce-fp32"}), 4 * 100e6 * 2);
  EXPECT_DOUBLE_EQ(comm_bench_peak_bytes(4, 100, {"allreduce-fp32", "compressed-sign"}),
                   4 * 100e6 * 3);
  EXPECT_DOUBLE_EQ(comm_bench_peak_bytes(2, 1, {"compressed-binary"}), 2 * 1e6 * 5);
}

TEST(MemoryEstimates, CollectivesAndSimulation) {
  // 1 Mi elements, 8 ranks: 32 B shared + 8 x 32 B per element.
  EXPECT_DOUBLE_EQ(collectives_peak_bytes(8, 1 << 20), (1 << 20) * (32.0 + 8 * 32.0));
  // 1024 GPUs: 64 MiB + 16 KiB x 1024 + 24 B x 1024^2 = 64 + 16 + 24 MiB.
  EXPECT_DOUBLE_EQ(simulation_peak_bytes(1024), (64.0 + 16 + 24) * (1 << 20));
}

TEST(MemoryEstimates, ChecksRefuseWhatExceedsTheBudgetNamingTheKey) {
  const MemoryBudget budget(uint64_t{1} << 30, "COMPOPT_MEMORY_LIMIT_MB");
  EXPECT_NO_THROW(check_train_memory(2, 1000, "adam", budget));
  EXPECT_THAT(error_of([&] { check_train_memory(16, 80015370, "adam", budget); }),
              HasSubstr("run.ranks = 16 ranks x 80015370 parameters (adam: 8 float vectors"));
  EXPECT_NO_THROW(check_comm_bench_memory(4, {1, 16}, {"allreduce-fp32"}, budget));
  EXPECT_THAT(error_of([&] {
                check_comm_bench_memory(4, {1, 4096}, {"allreduce-fp32"}, budget);
              }),
              HasSubstr("--sizes 4096 x --ranks 4"));
  EXPECT_THAT(error_of([&] { check_collectives_memory(64, 1 << 20, budget); }),
              HasSubstr("--elements 1048576 x --ranks 64"));
  EXPECT_NO_THROW(check_simulation_memory(1024, 4, "sweep.gpus", budget));
  EXPECT_THAT(error_of([&] { check_simulation_memory(16384, 1, "--gpus", budget); }),
              HasSubstr("--gpus = 16384 GPUs simulated, 1 at a time needs about 6."));
}

}  // namespace
}  // namespace compopt::cli
