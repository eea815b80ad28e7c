// The simulated clock of the PyTorch runs, against hand-computed sums: a step is charged its
// stage's time without communication, plus one collective when the run's bytes grew.

#include "experiments/reproduce/stage_clock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace compopt::cli::reproduce {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(StageClock, LocalTimeIsTheStepLessItsExposedCommunication) {
  sim::StageTiming warmup, compression;
  warmup.stage = "warmup";
  warmup.step_time_s = 3.0;
  warmup.comm_s = 1.25;
  compression.stage = "compression";
  compression.step_time_s = 2.0;
  compression.comm_s = 0.5;
  const StageClocks clocks =
      stage_clocks({warmup, compression}, optimizer_registry().get("onebit-adam"));
  ASSERT_EQ(clocks.size(), 2U);
  EXPECT_DOUBLE_EQ(clocks.at("warmup").local_s, 1.75);
  EXPECT_DOUBLE_EQ(clocks.at("warmup").sync_s, 1.25);  // period 1: every step communicates
  EXPECT_DOUBLE_EQ(clocks.at("compression").local_s, 1.5);
  EXPECT_DOUBLE_EQ(clocks.at("compression").sync_s, 0.5);
}

TEST(StageClock, AStepPaysACollectiveOnlyWhenItSentBytes) {
  const StageClocks clocks = {{"local", {1.0, 4.0}}, {"warmup", {2.0, 0.5}}};
  // local SGD with tau = 2: bytes grow at steps 2 and 4 only.
  EXPECT_THAT(simulated_clock({"local", "local", "local", "local"}, {0, 100, 100, 200}, clocks,
                              "local-sgd"),
              ElementsAre(1.0, 6.0, 7.0, 12.0));
  // The first step sent bytes: it pays its collective too.
  EXPECT_THAT(simulated_clock({"warmup", "warmup"}, {10, 20}, clocks, "x"), ElementsAre(2.5, 5.0));
}

TEST(StageClock, AStageTheSimulatorDidNotTimeIsNamed) {
  try {
    simulated_clock({"warmup", "compression"}, {1, 2}, {{"warmup", {1, 1}}}, "onebit-adam");
    FAIL() << "an untimed stage was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("onebit-adam ran step 2 in stage 'compression'"));
  }
  EXPECT_THROW(simulated_clock({"warmup"}, {}, {{"warmup", {1, 1}}}, "x"), InvalidArgument);
}

}  // namespace
}  // namespace compopt::cli::reproduce
