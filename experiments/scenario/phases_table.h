#pragma once
// The `phases` array of a [training] table (sim/training_phases.h; docs/simulator.md, "Time to
// train, time to accuracy, memory"): one inline table per phase, in the run's order,
//
//   workload       a workload preset's name, or a table as [workload] takes (workload_table.h)
//   fraction       the phase's share of the run's steps, in (0, 1]  } one of the two, the same
//   steps          the phase's step count, integer >= 1             } one in every phase
//   batch_per_gpu  micro-batch of the phase (integer >= 1; default: the scenario's)
//   grad_accum     accumulation of the phase (integer >= 1; default: the scenario's)
//
// e.g. phases = [{workload = "bert-large-seq128", fraction = 0.9},
//                {workload = "bert-large-seq512", fraction = 0.1, batch_per_gpu = 4}].
// Wrong types, unknown keys or workloads and values out of range throw InvalidArgument naming
// training.phases[i].<key> (i from 1); the shares' sums are checked by sim::check_phases.

#include <toml++/toml.h>

#include <vector>

#include "sim/training_phases.h"

namespace compopt::cli {

std::vector<sim::TrainingPhase> phases_from_config(const toml::node& phases);

}  // namespace compopt::cli
