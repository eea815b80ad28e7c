#pragma once
// The phases of a training run (docs/simulator.md, "Time to train, time to accuracy,
// memory"): a run whose workload or batch changes part-way, e.g. BERT pre-training at sequence
// 128 for 90% of the steps and at 512 for the rest (Devlin et al. 2019, arXiv:1810.04805,
// Appendix A.2). Each phase runs the scenario with its own workload, and its own micro-batch
// and accumulation where it gives them, for its share of the run's steps: a fraction of
// total_steps, or a step count. The time to train sums each phase's steps at that phase's
// simulated step time (time_to_train.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net_models/workload.h"

namespace compopt::sim {

// Fractions of a run must sum to 1 within this.
inline constexpr double kPhaseFractionTolerance = 1e-9;

struct TrainingPhase {
  net::WorkloadSpec workload;      // a preset, or a workload in full
  std::optional<double> fraction;  // share of the run's steps, in (0, 1]
  std::optional<int64_t> steps;    // or the phase's step count, >= 1
  int batch_per_gpu = 0;           // 0: the scenario's (its workload's default when it has none)
  int grad_accum = 0;              // 0: the scenario's
};

// Throws InvalidArgument naming training.phases[i] (counted from 1) and the value: a phase
// with both or neither of fraction and steps, phases mixing the two, a fraction outside
// (0, 1], fractions not summing to 1, steps not summing to total_steps, steps with
// total_samples (the step count would depend on the batch), or phases with neither
// total_steps nor total_samples (0: not given).
void check_phases(const std::vector<TrainingPhase>& phases, int64_t total_steps,
                  int64_t total_samples);

// The steps of each phase of a run of `total_steps` (checked phases): a phase's steps as
// given, or the fractions' cumulative boundaries rounded to steps, so the counts sum to
// total_steps. Without phases: {total_steps}.
std::vector<int64_t> phase_steps(const std::vector<TrainingPhase>& phases, int64_t total_steps);

}  // namespace compopt::sim
