#include "experiments/train_runner.h"

#include "core/optim/optimizer_factory.h"
#include "sim/sim_world.h"

namespace compopt::cli {

TrainResult run_training(const TrainConfig& c, const TrainHooks& hooks) {
  const TrainOptions options{.batch_per_rank = c.batch_per_rank,
                             .steps = c.steps,
                             .eval_every = c.eval_every,
                             .seed = c.seed};
  const OptimizerFactory factory = [&c](const ParamLayout& layout) {
    return make_optimizer(c.optimizer, c.optimizer_params, layout);
  };
  if (c.backend == "sim") {
    const RankLauncher launch = [&c](const std::function<void(Communicator&)>& fn) {
      sim::run_sim(c.cluster_spec, c.ranks, c.cluster_spec.gpus_per_node, fn);
    };
    return train_with(launch, *c.task, factory, options, hooks);
  }
  return train_local(*c.task, factory, options,
                     {.ranks = c.ranks, .ranks_per_node = c.gpus_per_node}, hooks);
}

}  // namespace compopt::cli
