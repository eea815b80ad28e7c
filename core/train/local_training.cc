#include "core/train/local_training.h"

#include "core/comm/local/local_world.h"

namespace compopt {

TrainResult train_with(const RankLauncher& launch, const Task& task,
                       const OptimizerFactory& make_optimizer, const TrainOptions& options,
                       const TrainHooks& hooks) {
  TrainResult result;
  TrainHooks rank_hooks = hooks;
  rank_hooks.on_record = [&](const StepRecord& r) {
    result.records.push_back(r);
    if (hooks.on_record) hooks.on_record(r);
  };
  launch([&](Communicator& comm) {
    auto optimizer = make_optimizer(task.layout());
    auto params = train_rank(comm, task, *optimizer, options, rank_hooks);
    if (comm.rank() == 0) result.params = std::move(params);
  });
  return result;
}

TrainResult train_local(const Task& task, const OptimizerFactory& make_optimizer,
                        const TrainOptions& options, LocalTopology topology,
                        const TrainHooks& hooks) {
  LocalWorld world({.ranks = topology.ranks, .ranks_per_node = topology.ranks_per_node});
  return train_with([&](const std::function<void(Communicator&)>& fn) { world.run(fn); }, task,
                    make_optimizer, options, hooks);
}

}  // namespace compopt
