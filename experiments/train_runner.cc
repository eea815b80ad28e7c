#include "experiments/train_runner.h"

#include "core/optim/optimizer_factory.h"
#include "real_backend/backend_registry.h"
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
  // sim simulates the configured cluster preset, not the registered backend's star of links.
  const RankLauncher launch =
      c.backend == "sim" ? RankLauncher([&c](const WorldFn& fn) {
        sim::run_sim(c.cluster_spec, c.ranks, c.cluster_spec.gpus_per_node, fn);
      })
                         : RankLauncher([&c](const WorldFn& fn) {
                             backend_registry().get(c.backend).run(
                                 {.ranks = c.ranks, .gpus_per_node = c.gpus_per_node}, fn);
                           });
  return train_with(launch, *c.task, factory, options, hooks);
}

}  // namespace compopt::cli
