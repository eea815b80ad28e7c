#pragma once
// The [training] table of a sweep or profile config (docs/simulator.md, "Time to train, time
// to accuracy, memory"), read into sim::TrainingSpec:
//
//   total_steps | total_samples       integer >= 1 (samples -> steps of the global batch)
//   warmup_steps (integer >= 0) | warmup_fraction (0..1)   the warmup stage's length
//   metric                            a metrics.csv column ending in accuracy or loss
//   target                            the metric's value to reach
//   [training.steps_to_target]        optimizer = steps to the target
//   [training.metrics]                optimizer = path of a metrics.csv (compopt train);
//                                     the first step reaching the target, or not reached,
//                                     and the run's warmup (its stage column)
//   baseline                          optimizer the end-to-end speedup is against
//   phases                            the run in phases of other workloads or batches
//                                     (phases_table.h, sim/training_phases.h)
//
// Files are read here, so a missing file, an absent column or a bad cell throws
// InvalidArgument naming the key before any simulation; so do wrong types, values out of
// range and unknown optimizers or keys.

#include <toml++/toml.h>

#include <set>
#include <string>

#include "sim/time_to_train.h"

namespace compopt::cli {

// The keys a [training] table accepts (for the config's key check).
const std::set<std::string>& training_config_keys();

sim::TrainingSpec training_from_config(const toml::table& table);

}  // namespace compopt::cli
