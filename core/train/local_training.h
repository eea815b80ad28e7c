#pragma once
// Data-parallel training on the Local backend: `ranks` threads, each with its
// own optimizer built by `make_optimizer`, running train_rank (train_loop.h).
// Returns rank 0's final parameters and every step's StepRecord (rank 0's
// view), and forwards records to hooks.on_record as they happen (on rank 0's
// thread). Exceptions of any rank are rethrown (root cause first).

#include <functional>
#include <memory>
#include <vector>

#include "core/optim/optimizer.h"
#include "core/tasks/task.h"
#include "core/train/train_loop.h"

namespace compopt {

using OptimizerFactory = std::function<std::unique_ptr<Optimizer>(const ParamLayout&)>;

struct LocalTopology {
  int ranks = 1;
  int ranks_per_node = 0;  // 0: all ranks on one node
};

struct TrainResult {
  std::vector<float> params;
  std::vector<StepRecord> records;
};

// Runs train_rank on every rank that `launch` starts (a backend's run function,
// e.g. LocalWorld::run or sim::run_sim), each rank with its own optimizer.
using RankLauncher = std::function<void(const std::function<void(Communicator&)>&)>;
TrainResult train_with(const RankLauncher& launch, const Task& task,
                       const OptimizerFactory& make_optimizer, const TrainOptions& options,
                       const TrainHooks& hooks = {});

TrainResult train_local(const Task& task, const OptimizerFactory& make_optimizer,
                        const TrainOptions& options, LocalTopology topology,
                        const TrainHooks& hooks = {});

}  // namespace compopt
