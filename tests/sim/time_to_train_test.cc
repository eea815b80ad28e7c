// Time to train and time to target against hand-computed hours from
// stage times the tests choose (not the simulator's, so a change of the compute model does
// not move them).

#include "sim/time_to_train.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "sim/scenario.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

// A resolved scenario of `gpus` GPUs (4 per node), micro-batch 16, `accum` accumulation.
StepConfig config_of(const std::string& optimizer, int gpus = 16, int accum = 1) {
  Scenario s;
  s.optimizer = optimizer;
  s.gpus = gpus;
  s.batch_per_gpu = 16;
  s.grad_accum = accum;
  return resolve_scenario(s);
}

StageTiming stage(const std::string& name, double step_time_s) {
  StageTiming t;
  t.stage = name;
  t.step_time_s = step_time_s;
  return t;
}

const std::vector<StageTiming> kOneStage = {stage("full_precision", 2.0)};
const std::vector<StageTiming> kTwoStages = {stage("warmup", 36.0), stage("compression", 3.6)};

template <typename F>
std::string error_of(F f) {
  return testing_support::invalid_argument_message(f);
}

TEST(TimeToTrain, SingleStageRunsEveryStepAtItsTime) {
  TrainingSpec spec;
  spec.total_steps = 1800;
  const TrainingTime t = time_to_train(spec, config_of("adam"), kOneStage);
  EXPECT_EQ(t.total_steps, 1800);
  EXPECT_EQ(t.warmup_steps, 0);
  EXPECT_DOUBLE_EQ(*t.time_to_train_h, 1800 * 2.0 / 3600);
  // A warmup fraction does not apply to an optimizer without a warmup stage.
  spec.warmup_fraction = 0.5;
  EXPECT_DOUBLE_EQ(*time_to_train(spec, config_of("adam"), kOneStage).time_to_train_h, 1.0);
}

TEST(TimeToTrain, WarmupStepsRunAtTheWarmupStageTime) {
  TrainingSpec spec;
  spec.total_steps = 1000;
  spec.warmup_steps = 100;
  const TrainingTime t = time_to_train(spec, config_of("onebit-adam"), kTwoStages);
  EXPECT_EQ(t.warmup_steps, 100);
  EXPECT_DOUBLE_EQ(*t.time_to_train_h, (100 * 36.0 + 900 * 3.6) / 3600);
  spec.warmup_steps.reset();
  spec.warmup_fraction = 0.25;  // 250 steps
  EXPECT_EQ(time_to_train(spec, config_of("onebit-adam"), kTwoStages).warmup_steps, 250);
  EXPECT_DOUBLE_EQ(*time_to_train(spec, config_of("onebit-lamb"), kTwoStages).time_to_train_h,
                   (250 * 36.0 + 750 * 3.6) / 3600);
}

TEST(TimeToTrain, SamplesBecomeStepsOfTheGlobalBatch) {
  // 16 GPUs x 16 x accumulation 2 = 512 samples a step; 1000 samples take 2 steps.
  const StepConfig c = config_of("adam", 16, 2);
  EXPECT_EQ(global_batch(c), 512);
  TrainingSpec spec;
  spec.total_samples = 1000;
  EXPECT_EQ(time_to_train(spec, c, kOneStage).total_steps, 2);
  spec.total_samples = 1024;
  EXPECT_EQ(time_to_train(spec, c, kOneStage).total_steps, 2);
  spec.total_samples = 1025;
  EXPECT_EQ(time_to_train(spec, c, kOneStage).total_steps, 3);
}

TEST(TimeToTrain, NothingGivenLeavesEveryFigureAbsent) {
  const TrainingTime t = time_to_train(TrainingSpec{}, config_of("adam"), kOneStage);
  EXPECT_FALSE(t.total_steps);
  EXPECT_FALSE(t.time_to_train_h);
  EXPECT_EQ(t.steps_to_target, "");
  EXPECT_FALSE(t.time_to_target_h);
}

TEST(TimeToTarget, StepsToTargetAtTheStageTimes) {
  TrainingSpec spec;
  spec.metric = "test_accuracy";
  spec.target = 0.9;
  spec.warmup_fraction = 0.1;
  spec.steps_to_target = {{"adam", 900}, {"onebit-adam", 1000}, {"birder", std::nullopt}};
  EXPECT_DOUBLE_EQ(*time_to_train(spec, config_of("adam"), kOneStage).time_to_target_h, 0.5);
  // Without total_steps the fraction is of the steps to the target: 100 warmup steps.
  const TrainingTime onebit = time_to_train(spec, config_of("onebit-adam"), kTwoStages);
  EXPECT_EQ(onebit.steps_to_target, "1000");
  EXPECT_DOUBLE_EQ(*onebit.time_to_target_h, (100 * 36.0 + 900 * 3.6) / 3600);
  // With total_steps it is of the run, capped at the steps to the target.
  spec.total_steps = 20000;  // 2000 warmup steps > 1000
  EXPECT_DOUBLE_EQ(*time_to_train(spec, config_of("onebit-adam"), kTwoStages).time_to_target_h,
                   1000 * 36.0 / 3600);
  const TrainingTime birder = time_to_train(spec, config_of("birder"), kOneStage);
  EXPECT_EQ(birder.steps_to_target, kNotReached);
  EXPECT_FALSE(birder.time_to_target_h);
  EXPECT_EQ(time_to_train(spec, config_of("lamb"), kOneStage).steps_to_target, "");
}

TEST(TimeToTrain, AMeasuredRunsWarmupWhenTheKeysGiveNone) {
  // The convergence run froze after 30 of its 200 steps (15%); the target came at step 120.
  TrainingSpec spec;
  spec.total_steps = 1000;
  spec.metric = "test_accuracy";
  spec.steps_to_target = {{"onebit-adam", 120}};
  spec.run_warmups = {{"onebit-adam", RunWarmup{30, 200}}};
  EXPECT_NO_THROW(check_training(spec, "onebit-adam"));
  const TrainingTime t = time_to_train(spec, config_of("onebit-adam"), kTwoStages);
  EXPECT_EQ(t.warmup_steps, 150);  // 15% of the 1000 steps
  EXPECT_DOUBLE_EQ(*t.time_to_train_h, (150 * 36.0 + 850 * 3.6) / 3600);
  EXPECT_DOUBLE_EQ(*t.time_to_target_h, (30 * 36.0 + 90 * 3.6) / 3600);  // the run's 30 steps
  // Keys take precedence over the measured run.
  spec.warmup_steps = 10;
  EXPECT_DOUBLE_EQ(*time_to_train(spec, config_of("onebit-adam"), kTwoStages).time_to_target_h,
                   (10 * 36.0 + 110 * 3.6) / 3600);
  // Another optimizer's run does not stand in for 1-bit LAMB's.
  spec.warmup_steps.reset();
  EXPECT_THROW(check_training(spec, "onebit-lamb"), InvalidArgument);
}

TEST(RunWarmup, CountsTheWarmupRowsOfAMetricsRun) {
  const std::string csv =
      "step,stage,test_accuracy\n1,warmup,\n2,warmup,\n3,compression,0.5\n4,compression,0.7\n";
  const std::optional<RunWarmup> run = run_warmup(csv, "m.csv");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->warmup_steps, 2);
  EXPECT_EQ(run->steps, 4);
  EXPECT_FALSE(run_warmup("step,test_accuracy\n1,0.5\n", "m.csv"));
  EXPECT_FALSE(run_warmup("step,stage\n", "m.csv"));
}

TEST(TrainingCheck, RefusesInconsistentSpecs) {
  TrainingSpec both;
  both.total_steps = 10;
  both.total_samples = 10;
  EXPECT_THAT(error_of([&] { check_training(both, "adam"); }), HasSubstr("both given"));
  TrainingSpec long_warmup;
  long_warmup.total_steps = 10;
  long_warmup.warmup_steps = 11;
  EXPECT_THAT(error_of([&] { check_training(long_warmup, "onebit-adam"); }),
              HasSubstr("training.warmup_steps = 11 exceeds training.total_steps = 10"));
  TrainingSpec no_warmup;
  no_warmup.total_steps = 10;
  EXPECT_NO_THROW(check_training(no_warmup, "adam"));
  EXPECT_THAT(error_of([&] { check_training(no_warmup, "onebit-lamb"); }),
              HasSubstr("training.warmup_steps or training.warmup_fraction"));
  TrainingSpec no_metric;
  no_metric.target = 0.5;
  EXPECT_THAT(error_of([&] { check_training(no_metric, "adam"); }),
              HasSubstr("training.metric is missing"));
  no_metric.metric = "perplexity";
  EXPECT_THAT(error_of([&] { check_training(no_metric, "adam"); }),
              HasSubstr("training.metric = 'perplexity'"));
}

TEST(TrainingCheck, ResolveScenarioChecksTheTrainingSpec) {
  Scenario s;
  s.optimizer = "onebit-adam";
  s.training.total_steps = 100;
  EXPECT_THROW(resolve_scenario(s), InvalidArgument);
  s.training.warmup_fraction = 0.15;
  EXPECT_NO_THROW(resolve_scenario(s));
}

TEST(FirstStepReaching, AccuracyUpwardsLossDownwardsEmptyCellsSkipped) {
  const std::string csv =
      "step,train_loss,test_accuracy\n"
      "1,2.0,\n"
      "2,1.5,0.5\n"
      "3,1.0,\n"
      "4,0.8,0.91\n";
  EXPECT_TRUE(higher_is_better("test_accuracy"));
  EXPECT_FALSE(higher_is_better("train_loss"));
  EXPECT_EQ(first_step_reaching(csv, "m.csv", "test_accuracy", 0.9), 4);
  EXPECT_EQ(first_step_reaching(csv, "m.csv", "test_accuracy", 0.5), 2);
  EXPECT_EQ(first_step_reaching(csv, "m.csv", "train_loss", 1.0), 3);
  EXPECT_EQ(first_step_reaching(csv, "m.csv", "train_loss", 0.5), std::nullopt);
  EXPECT_THAT(error_of([&] { first_step_reaching(csv, "m.csv", "test_loss", 0.5); }),
              HasSubstr("no column 'test_loss'"));
  EXPECT_THROW(first_step_reaching("epoch,test_accuracy\n1,0.9\n", "m.csv", "test_accuracy", 0.5),
               InvalidArgument);
}

}  // namespace
}  // namespace compopt::sim
