// A run in phases (sim/training_phases.h): the steps split, the checks of the shares, and the
// time to train / to target over phases against hours computed by hand from stage times the
// tests choose (not the simulator's). The memory and band of a phased scenario come from its
// phases (sim/scenario.h).

#include "sim/training_phases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/util/error.h"
#include "net_models/workload.h"
#include "sim/gpu_memory.h"
#include "sim/model_error.h"
#include "sim/scenario.h"
#include "sim/time_to_train.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

TrainingPhase phase(const std::string& workload, std::optional<double> fraction,
                    std::optional<int64_t> steps = std::nullopt, int batch = 0) {
  TrainingPhase p;
  p.workload = net::workload_preset(workload);
  p.fraction = fraction;
  p.steps = steps;
  p.batch_per_gpu = batch;
  return p;
}

const std::vector<TrainingPhase> kBert = {phase("bert-large-seq128", 0.9),
                                          phase("bert-large-seq512", 0.1, std::nullopt, 4)};

StageTiming stage(const std::string& name, double step_time_s) {
  StageTiming t;
  t.stage = name;
  t.step_time_s = step_time_s;
  return t;
}

// A 16-GPU scenario of `optimizer` with kBert's phases and `spec`'s other keys.
Scenario bert_scenario(const std::string& optimizer, TrainingSpec spec) {
  Scenario s;
  s.optimizer = optimizer;
  s.gpus = 16;
  spec.phases = kBert;
  s.training = std::move(spec);
  return s;
}

// The phases of `s` resolved, each at the given stage rows.
std::vector<PhaseTimings> phases_at(const Scenario& s,
                                    const std::vector<std::vector<StageTiming>>& timings) {
  std::vector<PhaseTimings> out;
  const std::vector<Scenario> phases = phase_scenarios(s);
  for (size_t i = 0; i < phases.size(); ++i)
    out.push_back({resolve_scenario(phases[i]), timings[i]});
  return out;
}

template <typename F>
std::string error_of(F f) {
  return testing_support::invalid_argument_message(f);
}

TEST(PhaseSteps, FractionsSplitTheRunAtRoundedBoundaries) {
  EXPECT_EQ(phase_steps(kBert, 1000), (std::vector<int64_t>{900, 100}));
  // Thirds of 100: boundaries at round(33.3) = 33 and round(66.7) = 67.
  const std::vector<TrainingPhase> thirds(3, phase("bert-large-seq128", 1.0 / 3));
  EXPECT_EQ(phase_steps(thirds, 100), (std::vector<int64_t>{33, 34, 33}));
  const std::vector<TrainingPhase> counted = {phase("bert-large-seq128", std::nullopt, 70),
                                              phase("bert-large-seq512", std::nullopt, 30)};
  EXPECT_EQ(phase_steps(counted, 100), (std::vector<int64_t>{70, 30}));
  EXPECT_EQ(phase_steps({}, 100), (std::vector<int64_t>{100}));
}

TEST(CheckPhases, RefusesSharesThatDoNotMakeTheRun) {
  EXPECT_NO_THROW(check_phases(kBert, 1000, 0));
  // 0.1 + 0.2 + 0.7 is not exactly 1 in doubles; within the tolerance it passes.
  EXPECT_NO_THROW(check_phases({phase("bert-large-seq128", 0.1), phase("bert-large-seq128", 0.2),
                                phase("bert-large-seq512", 0.7)},
                               1000, 0));
  EXPECT_THAT(
      error_of([] {
        check_phases({phase("bert-large-seq128", 0.9), phase("bert-large-seq512", 0.2)}, 1000, 0);
      }),
      HasSubstr("the fractions sum to 0.9 + 0.2 = 1.1, expected 1"));
  EXPECT_THAT(error_of([] { check_phases(kBert, 0, 0); }),
              HasSubstr("training.phases without training.total_steps or training.total_samples"));
  EXPECT_THAT(error_of([] { check_phases({phase("bert-large-seq128", 1.0, 5)}, 5, 0); }),
              HasSubstr("training.phases[1] (bert-large-seq128) gives both fraction and steps"));
  EXPECT_THAT(error_of([] { check_phases({phase("bert-large-seq128", std::nullopt)}, 5, 0); }),
              HasSubstr("gives neither fraction nor steps"));
  EXPECT_THAT(error_of([] {
                check_phases(
                    {phase("bert-large-seq128", 0.5), phase("bert-large-seq512", std::nullopt, 50)},
                    100, 0);
              }),
              HasSubstr("training.phases[2] gives steps where training.phases[1] gives fraction"));
  EXPECT_THAT(
      error_of([] {
        check_phases({phase("bert-large-seq128", -0.1), phase("bert-large-seq512", 1.1)}, 100, 0);
      }),
      HasSubstr("training.phases[1].fraction = -0.1, expected a share of the run in (0, 1]"));
  const std::vector<TrainingPhase> counted = {phase("bert-large-seq128", std::nullopt, 70),
                                              phase("bert-large-seq512", std::nullopt, 20)};
  EXPECT_THAT(error_of([&] { check_phases(counted, 100, 0); }),
              HasSubstr("the steps sum to 90, expected training.total_steps = 100"));
  EXPECT_THAT(error_of([&] { check_phases(counted, 0, 5000); }),
              HasSubstr("training.phases give steps with training.total_samples = 5000"));
}

TEST(PhasedTimeToTrain, EachPhaseRunsItsStepsAtItsOwnStepTime) {
  TrainingSpec spec;
  spec.total_steps = 1000;
  const Scenario s = bert_scenario("adam", spec);
  const TrainingTime t = time_to_train(
      s.training, phases_at(s, {{stage("full_precision", 2.0)}, {stage("full_precision", 8.0)}}));
  EXPECT_EQ(t.total_steps, 1000);
  EXPECT_DOUBLE_EQ(*t.time_to_train_h, (900 * 2.0 + 100 * 8.0) / 3600);
  EXPECT_EQ(t.phases,
            "bert-large-seq128:0.9 (900 steps at batch 16x1) + "
            "bert-large-seq512:0.1 (100 steps at batch 4x1)");
}

TEST(PhasedTimeToTrain, TheWarmupIsTheRunsFirstStepsAcrossPhases) {
  // 950 warmup steps: all 900 of the first phase and 50 of the second.
  TrainingSpec spec;
  spec.total_steps = 1000;
  spec.warmup_steps = 950;
  const Scenario s = bert_scenario("onebit-adam", spec);
  const auto run = phases_at(s, {{stage("warmup", 2.0), stage("compression", 1.0)},
                                 {stage("warmup", 8.0), stage("compression", 3.0)}});
  const TrainingTime t = time_to_train(s.training, run);
  EXPECT_EQ(t.warmup_steps, 950);
  EXPECT_DOUBLE_EQ(*t.time_to_train_h, (900 * 2.0 + 50 * 8.0 + 50 * 3.0) / 3600);
  // A short warmup stays in the first phase.
  TrainingSpec short_warmup = s.training;
  short_warmup.warmup_steps = 100;
  EXPECT_DOUBLE_EQ(*time_to_train(short_warmup, run).time_to_train_h,
                   (100 * 2.0 + 800 * 1.0 + 100 * 3.0) / 3600);
}

TEST(PhasedTimeToTarget, StepsPastTheRunsEndRunInTheLastPhase) {
  TrainingSpec spec;
  spec.total_steps = 1000;
  spec.metric = "test_accuracy";
  spec.steps_to_target = {{"adam", 1200}, {"lamb", 500}};
  Scenario s = bert_scenario("adam", spec);
  const std::vector<std::vector<StageTiming>> times = {{stage("full_precision", 2.0)},
                                                       {stage("full_precision", 8.0)}};
  EXPECT_DOUBLE_EQ(*time_to_train(s.training, phases_at(s, times)).time_to_target_h,
                   (900 * 2.0 + 300 * 8.0) / 3600);
  s.optimizer = "lamb";
  EXPECT_DOUBLE_EQ(*time_to_train(s.training, phases_at(s, times)).time_to_target_h,
                   500 * 2.0 / 3600);
}

TEST(PhaseScenarios, APhaseIsTheScenarioWithItsWorkloadAndBatch) {
  TrainingSpec spec;
  spec.total_steps = 1000;
  Scenario s = bert_scenario("adam", spec);
  s.batch_per_gpu = 8;
  s.grad_accum = 2;
  const std::vector<Scenario> phases = phase_scenarios(s);
  ASSERT_EQ(phases.size(), 2U);
  const StepConfig first = resolve_scenario(phases[0]), second = resolve_scenario(phases[1]);
  EXPECT_EQ(first.workload.name, "bert-large-seq128");
  EXPECT_EQ(first.batch_per_gpu, 8);  // the scenario's
  EXPECT_EQ(second.workload.name, "bert-large-seq512");
  EXPECT_EQ(second.batch_per_gpu, 4);  // the phase's own
  EXPECT_EQ(second.grad_accum, 2);
  EXPECT_EQ(second.cluster.gpus(), 16);
  EXPECT_TRUE(phases[1].training.phases.empty());
}

TEST(PhaseScenarios, TotalSamplesNeedOneGlobalBatch) {
  TrainingSpec spec;
  spec.total_samples = 100000;
  // 16 GPUs x 16 against 16 GPUs x 4 samples a step.
  EXPECT_THAT(error_of([&] { resolve_scenario(bert_scenario("adam", spec)); }),
              HasSubstr("training.total_samples = 100000 with training.phases of different global "
                        "batches (phase 1 bert-large-seq128: 256 samples per step, phase 2 "
                        "bert-large-seq512: 64)"));
  Scenario same = bert_scenario("adam", spec);
  same.training.phases[1].batch_per_gpu = 16;
  const StepConfig config = resolve_scenario(same);
  const TrainingTime t = time_to_train(
      same.training,
      phases_at(same, {{stage("full_precision", 1.0)}, {stage("full_precision", 4.0)}}));
  EXPECT_EQ(t.total_steps, 391);  // ceil(100000 / 256)
  EXPECT_EQ(global_batch(config), 256);
  EXPECT_DOUBLE_EQ(*t.time_to_train_h, (352 * 1.0 + 39 * 4.0) / 3600);  // round(0.9 x 391) = 352
}

TEST(PhasedScenarioTotals, MemoryIsThePeakPhaseAndTheBandMovesEveryPhase) {
  TrainingSpec spec;
  spec.total_steps = 1000;
  Scenario s = bert_scenario("adam", spec);
  s.training.phases[1].batch_per_gpu = 16;  // seq 512 at batch 16: the larger activations
  const StepConfig config = resolve_scenario(s);
  const std::vector<Scenario> scenarios = phase_scenarios(s);
  // One uncertain input, moving phase 1 from 2 s to 1..3 s and phase 2 from 8 s to 4..12 s.
  const auto spread_of_times = [](double low, double high) {
    StepSpread spread;
    spread.inputs.push_back({"x", {stage("full_precision", low)}, {stage("full_precision", high)}});
    return spread;
  };
  const std::vector<SimulatedPhase> phases = {
      {resolve_scenario(scenarios[0]), {stage("full_precision", 2.0)}, spread_of_times(1, 3)},
      {resolve_scenario(scenarios[1]), {stage("full_precision", 8.0)}, spread_of_times(4, 12)}};
  const ScenarioTotals totals = scenario_totals(config, s.training, {stage("full_precision", 5.0)},
                                                spread_of_times(5, 5), phases);
  const double hours = (900 * 2.0 + 100 * 8.0) / 3600;
  EXPECT_DOUBLE_EQ(*totals.training.time_to_train_h, hours);
  // Each side: the input's move of the summed hours and the model-error term, root-sum-square.
  const double term = model_error().fraction * hours;
  EXPECT_NEAR(*totals.training_low.time_to_train_h,
              hours - std::hypot(hours - (900 * 1.0 + 100 * 4.0) / 3600, term), 1e-12);
  EXPECT_NEAR(*totals.training_high.time_to_train_h,
              hours + std::hypot((900 * 3.0 + 100 * 12.0) / 3600 - hours, term), 1e-12);
  const GpuMemory seq512 = estimate_gpu_memory(phases[1].config);
  EXPECT_GT(seq512.total_bytes(), estimate_gpu_memory(phases[0].config).total_bytes());
  EXPECT_DOUBLE_EQ(totals.memory.total_bytes(), seq512.total_bytes());
  EXPECT_EQ(totals.memory_phase, "bert-large-seq512 at batch 16x1");
}

}  // namespace
}  // namespace compopt::sim
