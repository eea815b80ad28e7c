#include "experiments/train_runner.h"

#include "core/optim/optimizer_factory.h"
#include "experiments/train_resume.h"
#include "real_backend/backend_registry.h"
#include "sim/sim_transport.h"
#include "sim/sim_world.h"

namespace compopt::cli {
namespace {

// `hooks` plus, for a stand-in, the wire scale of each step's stage on every rank.
TrainHooks with_wire_scale(const TrainConfig& c, TrainHooks hooks) {
  if (!c.compute.stand_in) return hooks;
  hooks.before_step = [&c, inner = std::move(hooks.before_step)](Communicator& comm, Stage stage) {
    sim::SimTransport::of(comm).set_wire_map(sim::WireMap(c.compute.wire_scale_of(stage)));
    if (inner) inner(comm, stage);
  };
  return hooks;
}

}  // namespace

TrainResult run_training(const TrainConfig& c, const TrainOptions& options, const TrainHooks& hooks,
                         const CheckpointOptions& checkpoints) {
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
  return train_with(launch, *c.task, factory, options, with_wire_scale(c, hooks), checkpoints);
}

TrainResult run_training(const TrainConfig& c, const TrainHooks& hooks) {
  return run_training(c, train_options_of(c, 0), hooks);
}

}  // namespace compopt::cli
