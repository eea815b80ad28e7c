#include "experiments/train/train_runner.h"

#include <fmt/format.h>

#include "core/optim/optimizer_factory.h"
#include "core/util/error.h"
#include "experiments/train/train_resume.h"
#include "real_backend/backend_registry.h"
#include "sim/backend/sim_transport.h"
#include "sim/backend/sim_world.h"

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

// A simulated backend (sim) runs the configured cluster, not the registered backend's star
// of links; a launched rank joins its world (ranks = 0), whose size must be run.ranks.
RankLauncher launcher_of(const TrainConfig& c) {
  if (c.simulated) {
    return [&c](const WorldFn& fn) {
      sim::run_sim(c.cluster_spec, c.ranks, c.cluster_spec.gpus_per_node, fn);
    };
  }
  return [&c](const WorldFn& fn) {
    const int ranks = c.launched ? 0 : c.ranks;
    backend_registry().get(c.backend).run(
        {.ranks = ranks, .gpus_per_node = c.gpus_per_node}, [&](Communicator& comm) {
          if (comm.size() != c.ranks) {
            throw InvalidArgument(fmt::format("run.ranks = {}, but the launched world has {} ranks",
                                              c.ranks, comm.size()));
          }
          fn(comm);
        });
  };
}

}  // namespace

TrainResult run_training(const TrainConfig& c, const TrainOptions& options, const TrainHooks& hooks,
                         const CheckpointOptions& checkpoints) {
  const OptimizerFactory factory = [&c](const ParamLayout& layout) {
    return make_optimizer(c.optimizer, c.optimizer_params, layout);
  };
  CheckpointOptions per_process = checkpoints;
  per_process.ranks_in_processes = c.launched.has_value();
  return train_with(launcher_of(c), *c.task, factory, options, with_wire_scale(c, hooks),
                    per_process);
}

TrainResult run_training(const TrainConfig& c, const TrainHooks& hooks) {
  return run_training(c, train_options_of(c, 0), hooks);
}

}  // namespace compopt::cli
