#pragma once
// Runs the training a TrainConfig describes on its backend: in-process ranks
// (Local threads, tcp/hybrid threads), one launched rank of a process world
// (config.launched: tcp, mpi, hybrid, nccl; checkpoints gathered on rank 0), or
// the SimGrid model of its cluster (real math, network time simulated, local
// work charged as config.compute says; with a stand-in workload every rank's
// wire is rescaled before each optimizer step for that step's stage,
// sim_compute.h). Shared by `compopt train` and the training studies of
// `compopt reproduce`.

#include "core/train/local_training.h"
#include "experiments/train/train_config.h"

namespace compopt::cli {

TrainResult run_training(const TrainConfig& config, const TrainOptions& options,
                         const TrainHooks& hooks, const CheckpointOptions& checkpoints = {});

// With train_options_of(config, 0): no checkpoints.
TrainResult run_training(const TrainConfig& config, const TrainHooks& hooks = {});

}  // namespace compopt::cli
