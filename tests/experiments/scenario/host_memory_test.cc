// Peak-memory estimates of the commands, against byte counts derived by hand from the
// vectors each rank holds, and the checks that refuse what exceeds a MemoryBudget.

#include "experiments/scenario/host_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/cluster_spec.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string error_of(const std::function<void()>& fn) {
  return testing_support::invalid_argument_message(fn);
}

TEST(HostMemory, OptimizerStateCountsEachVectorAndErrorFeedback) {
  EXPECT_EQ(optimizer_state_vectors("sgd"), 1);          // gradient copy
  EXPECT_EQ(optimizer_state_vectors("adam"), 3);         // m, v, gradient copy
  EXPECT_EQ(optimizer_state_vectors("onebit-adam"), 5);  // + worker and server error feedback
  EXPECT_EQ(optimizer_state_vectors("onebit-lamb"), 7);
  EXPECT_EQ(optimizer_state_vectors("birder"), 6);
  EXPECT_EQ(optimizer_state_vectors("diloco"), 5);  // m, v, anchor, outer momentum, in flight
  EXPECT_EQ(optimizer_state_vectors("streaming-diloco"), 7);          // + error feedback
  EXPECT_EQ(optimizer_state_vectors("an-optimizer-added-later"), 7);  // the largest: upper bound
}

TEST(HostMemory, TrainCountsEveryRanksVectors) {
  // 1000 parameters, 2 ranks, adam: (params + grads + 3 state + 3 transients) x 4 B x 2.
  EXPECT_DOUBLE_EQ(train_peak_bytes(2, 1000, "adam"), 2 * 1000 * 4.0 * 8);
  // The 784-16384-4096-10 MLP of fashion-mnist on 16 ranks: 80,015,370 parameters.
  const size_t mlp = 784 * 16384 + 16384 + 16384 * 4096 + 4096 + 4096 * 10 + 10;
  ASSERT_EQ(mlp, 80015370u);
  EXPECT_NEAR(train_peak_bytes(16, mlp, "adam") / kGiB, 38.15, 0.01);
  EXPECT_DOUBLE_EQ(train_peak_bytes(16, mlp, "onebit-adam"),
                   train_peak_bytes(16, mlp, "adam") * 10 / 8);
}

TEST(HostMemory, CommBenchCountsEveryRanksCopiesOfTheLargestSize) {
  EXPECT_DOUBLE_EQ(comm_bench_peak_bytes(4, 100, 2), 4 * 100e6 * 2);
  EXPECT_DOUBLE_EQ(comm_bench_peak_bytes(2, 1, 5), 2 * 1e6 * 5);
}

TEST(HostMemory, Collectives) {
  // 1 Mi elements, 8 ranks: 32 B shared + 8 x 32 B per element.
  EXPECT_DOUBLE_EQ(collectives_peak_bytes(8, 1 << 20), (1 << 20) * (32.0 + 8 * 32.0));
}

// A step of `optimizer` on `gpus` GPUs of ethernet-v100-4 (a star), or of a fat-tree of 16
// nodes per leaf switch when `leaves`.
sim::StepConfig step(const std::string& optimizer, int gpus, bool leaves = false) {
  sim::StepConfig c = sim::resolve_scenario({.optimizer = optimizer, .gpus = gpus});
  if (leaves) {
    c.cluster.topology = net::Topology::kFatTree;
    c.cluster.nodes_per_switch = 16;
  }
  return c;
}

TEST(HostMemory, SimulationPathFollowsTheSimulatorsChoice) {
  // A star collapses onto a two-node mirror whatever the optimizer.
  EXPECT_EQ(simulation_path(step("adam", 131072)), SimulationPath::kCollapsed);
  EXPECT_EQ(simulation_path(step("birder-hierarchical", 131072)), SimulationPath::kCollapsed);
  // Several leaf switches: the ring's rounds on every rank, the compressed schemes in full.
  EXPECT_EQ(simulation_path(step("adam", 1024, true)), SimulationPath::kRoundsEveryRank);
  EXPECT_EQ(simulation_path(step("onebit-adam", 1024, true)), SimulationPath::kFullEveryRank);
  // A platform file, or the reference mode of the tests: every collective in full.
  sim::StepConfig file = step("adam", 1024);
  file.cluster.platform_file = "cluster.xml";
  EXPECT_EQ(simulation_path(file), SimulationPath::kFullEveryRank);
  sim::StepConfig full = step("adam", 1024);
  full.full_collectives = true;
  EXPECT_EQ(simulation_path(full), SimulationPath::kFullEveryRank);
}

TEST(HostMemory, SimulationGrowsLinearlyWhereItCollapsesQuadraticallyElsewhere) {
  constexpr double kMiB = 1 << 20;
  // 1024 GPUs: 64 MiB + 1 KiB x 1024 collapsed; + 16 KiB x 1024 + 48 B x 1024^2 = 16 + 48 MiB
  // with rounds on every rank; + 16 MiB + 2 KiB x 1024^2 = 2048 MiB with the full collective.
  EXPECT_DOUBLE_EQ(simulation_peak_bytes(step("adam", 1024)), 65 * kMiB);
  EXPECT_DOUBLE_EQ(simulation_peak_bytes(step("adam", 1024, true)), 128 * kMiB);
  EXPECT_DOUBLE_EQ(simulation_peak_bytes(step("onebit-adam", 1024, true)), (64 + 16 + 2048) * kMiB);
  // 131,072 GPUs on a star: 64 + 128 MiB (measured: 78 MB).
  EXPECT_DOUBLE_EQ(simulation_peak_bytes(step("adam", 131072)), 192 * kMiB);
}

TEST(HostMemory, ChecksRefuseWhatExceedsTheBudgetNamingTheKey) {
  const MemoryBudget budget(uint64_t{1} << 30, "COMPOPT_MEMORY_LIMIT_MB");
  EXPECT_NO_THROW(check_train_memory(2, 1000, "adam", budget));
  EXPECT_THAT(error_of([&] { check_train_memory(16, 80015370, "adam", budget); }),
              HasSubstr("run.ranks = 16 ranks x 80015370 parameters (adam: 8 float vectors"));
  EXPECT_NO_THROW(check_comm_bench_memory(4, {1, 16}, 2, budget));
  EXPECT_THAT(error_of([&] {
                check_comm_bench_memory(4, {1, 4096}, 2, budget);
              }),
              HasSubstr("--sizes 4096 x --ranks 4"));
  EXPECT_THAT(error_of([&] { check_collectives_memory(64, 1 << 20, budget); }),
              HasSubstr("--elements 1048576 x --ranks 64"));
  const sim::Scenario star{.gpus = 131072}, big_star{.gpus = 1 << 20};
  const sim::Scenario leaves{.cluster_spec = step("onebit-adam", 1024, true).cluster,
                             .optimizer = "onebit-adam"};
  EXPECT_NO_THROW(check_simulation_memory({star}, 4, "sweep.gpus", budget));  // 4 x 192 MiB
  EXPECT_THAT(error_of([&] { check_simulation_memory({big_star}, 1, "--gpus", budget); }),
              HasSubstr("--gpus = 1048576 GPUs simulated, 1 at a time needs about 1.1 GiB"));
  // The costliest scenario is named, with how its GPUs are simulated.
  EXPECT_THAT(error_of([&] {
                check_simulation_memory({star, leaves}, 1, "sweep.gpus", budget);
              }),
              HasSubstr("sweep.gpus = 1024 GPUs simulated one actor per GPU running the "
                        "collective in full (no round timing there), 1 at a time needs about 2.1"));
}

}  // namespace
}  // namespace compopt::cli
