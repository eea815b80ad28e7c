#include "experiments/train/train_limits.h"

#include <fmt/format.h>

#include "core/util/error.h"
#include "experiments/scenario/host_memory.h"
#include "real_backend/backend_registry.h"

namespace compopt::cli {

void check_train_limits(const TrainConfig& c, const MemoryBudget& budget) {
  if (c.steps > kMaxTrainSteps) {
    const char* key = c.values.count("run.steps") ? "run.steps" : "run.epochs";
    throw InvalidArgument(fmt::format("config key '{}': {} steps in all, expected at most {}", key,
                                      c.steps, kMaxTrainSteps));
  }
  if (c.eval_every > kMaxTrainSteps) {
    throw InvalidArgument(fmt::format("config key 'run.eval_every' = {}, expected 0..{}",
                                      c.eval_every, kMaxTrainSteps));
  }
  const auto name = c.values.find("optimizer.name");
  // A launched process holds one rank; in-process backends hold them all.
  check_train_memory(c.launched ? 1 : c.ranks, c.task->layout().total(),
                     name != c.values.end() ? name->second : "adam", budget);
  // What the backend needs of the host for in-process ranks (a TCP mesh: open files).
  if (!c.launched && !c.simulated) {
    backend_registry().get(c.backend).backend->check_host(
        {.ranks = c.ranks, .gpus_per_node = c.gpus_per_node});
  }
}

}  // namespace compopt::cli
