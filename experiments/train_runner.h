#pragma once
// Runs the training a TrainConfig describes on its backend: Local threads, or
// the SimGrid model of its cluster (real math and measured compute, simulated
// network time). Shared by `compopt train` and the training studies of
// `compopt reproduce`.

#include "core/train/local_training.h"
#include "experiments/train_config.h"

namespace compopt::cli {

TrainResult run_training(const TrainConfig& config, const TrainHooks& hooks = {});

}  // namespace compopt::cli
