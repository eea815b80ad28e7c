#pragma once
// Limits of `compopt train` checked once its configuration is resolved and before the
// optimizer is built: the run length (run.steps, or run.epochs x steps per epoch, and
// run.eval_every) and the estimated peak memory of the ranks this process holds (all of them;
// one on a launched rank) (host_memory.h) against the machine's MemoryBudget, and what the
// backend needs of the host for in-process ranks (Backend::check_host: a TCP mesh's open
// files). Throws InvalidArgument naming the key or the limit (exit code 2).

#include <cstdint>

#include "core/util/memory_budget.h"
#include "experiments/train/train_config.h"

namespace compopt::cli {

// More steps than this would run for weeks even on the smallest task.
inline constexpr int64_t kMaxTrainSteps = 1'000'000'000;

// `c` needs backend, ranks, steps, eval_every, task and values (for optimizer.name).
void check_train_limits(const TrainConfig& c, const MemoryBudget& budget);

}  // namespace compopt::cli
