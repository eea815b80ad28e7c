#pragma once
// Data-parallel training on the Local backend: `ranks` threads, each with its
// own optimizer built by `make_optimizer`, running train_rank (train_loop.h).
// Returns rank 0's final parameters and every step's StepRecord (rank 0's
// view), and forwards records to hooks.on_record as they happen (on rank 0's
// thread). Exceptions of any rank are rethrown (root cause first).
//
// Checkpointing (CheckpointOptions): with options.checkpoint_every > 0 the
// ranks' RankCheckpoints of a step are gathered in memory (no communication;
// with ranks_in_processes over the communicator, outside the byte counters)
// and `write` gets the assembled Checkpoint (ranks in order, records of steps
// 1..step) once, on the thread of the last rank to hand its state over; the
// other ranks wait for it at their next collective. With `resume`, every rank
// continues from its RankCheckpoint and TrainResult::records starts with the
// checkpoint's records, so it is the full history; hooks.on_record sees the
// new steps only.

#include <functional>
#include <memory>
#include <vector>

#include "core/optim/optimizer.h"
#include "core/tasks/task.h"
#include "core/train/checkpoint.h"
#include "core/train/train_loop.h"

namespace compopt {

using OptimizerFactory = std::function<std::unique_ptr<Optimizer>(const ParamLayout&)>;

struct LocalTopology {
  int ranks = 1;
  int gpus_per_node = 0;  // 0: all ranks on one node
};

struct TrainResult {
  std::vector<float> params;
  std::vector<StepRecord> records;
};

struct CheckpointOptions {
  // Receives each complete checkpoint (identity and settings empty: the
  // caller fills them). Exceptions fail the run.
  std::function<void(Checkpoint&)> write;
  // Continue from this checkpoint (check_resume first for early errors).
  std::shared_ptr<const Checkpoint> resume;
  // The ranks are separate processes (a launched backend): each checkpoint's
  // states are sent to rank 0 (gather_rank_checkpoints) and `write` runs on rank
  // 0 only; other processes only need `resume`.
  bool ranks_in_processes = false;
};

// Throws InvalidArgument unless `checkpoint` can continue a run of `options`
// on `ranks` ranks of this task with optimizers from `make_optimizer`: world
// size, step records, and check_resume_state for every rank. No training work.
void check_resume(const Checkpoint& checkpoint, const Task& task,
                  const OptimizerFactory& make_optimizer, const TrainOptions& options, int ranks);

// Runs train_rank on every rank that `launch` starts (a backend's run function,
// e.g. LocalWorld::run or sim::run_sim, or one launched rank of a process
// world), each rank with its own optimizer. On a launched rank other than 0,
// TrainResult is empty.
using RankLauncher = std::function<void(const std::function<void(Communicator&)>&)>;
TrainResult train_with(const RankLauncher& launch, const Task& task,
                       const OptimizerFactory& make_optimizer, const TrainOptions& options,
                       const TrainHooks& hooks = {}, const CheckpointOptions& checkpoints = {});

TrainResult train_local(const Task& task, const OptimizerFactory& make_optimizer,
                        const TrainOptions& options, LocalTopology topology,
                        const TrainHooks& hooks = {}, const CheckpointOptions& checkpoints = {});

}  // namespace compopt
