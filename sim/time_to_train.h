#pragma once
// Whole runs from one simulated step (docs/simulator.md, "Time to train, time to accuracy,
// memory"): the [training] inputs of `compopt sweep` / `compopt profile`, and
//   time to train   warmup steps x the warmup stage's step time + the other steps x the
//                   compression stage's step time (single-stage optimizers: every step at
//                   their one stage's time), in hours;
//   time to target  the optimizer's steps to a metric target (given, or the first step of a
//                   convergence run's metrics.csv reaching it) at the same per-stage times;
//   speedup         each scenario's time to train against its baseline optimizer's in the
//                   same group of a sweep (same everything but the optimizer; computed by
//                   the sweep, experiments/scenario/speedup_baseline.h).
// The warmup is warmup_steps, or warmup_fraction x total steps, or else what the optimizer's
// convergence run (its metrics.csv) spent in the warmup stage: the freeze detector's step
// there, as a fraction of that run for the time to train and as steps for the time to
// target. An optimizer with a warmup stage needs one of them (1-bit Adam's freeze_step
// defaults to the freeze detector, whose step only a run can tell). Bad input throws
// InvalidArgument naming the key.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/step_simulator.h"
#include "sim/training_phases.h"

namespace compopt::sim {

// The warmup of a convergence run: steps its metrics.csv records in the warmup stage, of all.
struct RunWarmup {
  int64_t warmup_steps = 0;
  int64_t steps = 0;
};

struct TrainingSpec {
  int64_t total_steps = 0;    // 0: not given
  int64_t total_samples = 0;  // 0: not given; steps = ceil(samples / global batch)
  std::optional<double> warmup_fraction;
  std::optional<int64_t> warmup_steps;
  std::string metric;  // metrics.csv column the target is on
  std::optional<double> target;
  // Canonical optimizer name -> steps to the target; nullopt: the run never reached it.
  std::map<std::string, std::optional<int64_t>> steps_to_target;
  // Canonical optimizer -> the warmup of its metrics run, for optimizers with a warmup stage.
  std::map<std::string, RunWarmup> run_warmups;
  std::string baseline;               // empty: each optimizer's baseline in the optimizer registry
  std::vector<TrainingPhase> phases;  // empty: every step runs the scenario's own workload
};

// The whole-run figures of one scenario; absent when their inputs are not given.
struct TrainingTime {
  std::optional<int64_t> total_steps, warmup_steps;
  std::optional<double> time_to_train_h;
  std::string steps_to_target;  // empty, a step count, or kNotReached
  std::optional<double> time_to_target_h;
  // With phases: each phase's workload, share, steps and batch, e.g. "bert-large-seq128:0.9
  // (90000 steps at batch 16x1) + ..."; empty without.
  std::string phases;
};

// One phase of a run: its resolved config and simulate_step's rows of it.
struct PhaseTimings {
  StepConfig config;
  std::vector<StageTiming> timings;
};

inline constexpr const char* kNotReached = "not_reached";

// Throws InvalidArgument for an inconsistent spec (both total_steps and total_samples, a
// warmup longer than the run, a metric without a direction, ...) or when `optimizer` has a
// warmup stage and the spec gives steps but no warmup.
void check_training(const TrainingSpec& spec, const std::string& optimizer);

// Samples of one optimizer step: GPUs x micro-batch x accumulation.
int64_t global_batch(const StepConfig& config);

// `timings` are simulate_step(config)'s rows, one per stage of config.optimizer; a spec with
// phases throws std::logic_error here (the overload below takes them).
TrainingTime time_to_train(const TrainingSpec& spec, const StepConfig& config,
                           const std::vector<StageTiming>& timings);
// The run over `phases`, phases[i] of spec.phases[i] (the same optimizer; one of them for a
// spec without phases); total_samples counts steps of the first phase's global batch.
TrainingTime time_to_train(const TrainingSpec& spec, const std::vector<PhaseTimings>& phases);

// True when a larger value of `metric` is better (names ending in "accuracy"), false when a
// smaller one is (ending in "loss"); throws InvalidArgument for other names.
bool higher_is_better(std::string_view metric);

// The first step of a metrics.csv text (columns `step` and `metric`; empty cells skipped)
// whose value reaches `target`; nullopt when none does. Throws InvalidArgument naming
// `source` when a column is absent or a cell is not a number.
std::optional<int64_t> first_step_reaching(std::string_view metrics_csv, std::string_view source,
                                           const std::string& metric, double target);

// The rows of a metrics.csv text in the stage "warmup", and its last step; nullopt when
// the text has no stage column or no rows.
std::optional<RunWarmup> run_warmup(std::string_view metrics_csv, std::string_view source);

}  // namespace compopt::sim
