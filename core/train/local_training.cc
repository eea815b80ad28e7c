#include "core/train/local_training.h"

#include <fmt/format.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>

#include "core/comm/local/local_world.h"
#include "core/train/checkpoint_gather.h"
#include "core/util/error.h"

namespace compopt {
namespace {

// Gathers the ranks' states of each checkpoint step and rank 0's records;
// the last rank to hand over a step's state assembles and writes it.
class CheckpointCollector {
 public:
  CheckpointCollector(std::function<void(Checkpoint&)> write, std::vector<StepRecord> records)
      : write_(std::move(write)), records_(std::move(records)) {}

  void add_record(const StepRecord& r) {
    std::lock_guard lock(mutex_);
    records_.push_back(r);
  }

  void add_state(int rank, int ranks, RankCheckpoint&& state) {
    std::optional<Checkpoint> ready;
    {
      std::lock_guard lock(mutex_);
      auto& slots = pending_[state.step];
      if (slots.empty()) slots.resize(static_cast<size_t>(ranks));
      const int64_t step = state.step;
      slots[static_cast<size_t>(rank)] = std::move(state);
      if (++arrived_[step] < ranks) return;
      // Rank 0 handed its state over after recording `step`, so records_
      // holds steps 1..step (and no later ones: those need every rank).
      ready.emplace();
      ready->step = step;
      for (auto& s : slots) ready->ranks.push_back(std::move(*s));
      for (const StepRecord& r : records_) {
        if (r.step <= step) ready->records.push_back(r);
      }
      pending_.erase(step);
      arrived_.erase(step);
    }
    if (ready->records.size() != static_cast<size_t>(ready->step)) {
      throw std::logic_error(
          fmt::format("checkpoint at step {} has {} records", ready->step, ready->records.size()));
    }
    if (write_) write_(*ready);
  }

  std::vector<StepRecord> take_records() { return std::move(records_); }

 private:
  std::function<void(Checkpoint&)> write_;
  std::mutex mutex_;
  std::vector<StepRecord> records_;
  std::map<int64_t, std::vector<std::optional<RankCheckpoint>>> pending_;
  std::map<int64_t, int> arrived_;
};

}  // namespace

void check_resume(const Checkpoint& checkpoint, const Task& task,
                  const OptimizerFactory& make_optimizer, const TrainOptions& options, int ranks) {
  if (checkpoint.world_size() != ranks) {
    throw InvalidArgument(fmt::format("resume: the checkpoint holds {} ranks, this run has {}",
                                      checkpoint.world_size(), ranks));
  }
  if (checkpoint.records.size() != static_cast<size_t>(checkpoint.step)) {
    throw InvalidArgument(fmt::format("resume: the checkpoint at step {} holds {} step records",
                                      checkpoint.step, checkpoint.records.size()));
  }
  for (int r = 0; r < ranks; ++r) {
    const RankCheckpoint& state = checkpoint.ranks[static_cast<size_t>(r)];
    if (state.step != checkpoint.step) {
      throw InvalidArgument(fmt::format("resume: rank {} state is of step {}, the checkpoint of {}",
                                        r, state.step, checkpoint.step));
    }
    auto optimizer = make_optimizer(task.layout());
    check_resume_state(state, task, *optimizer, options, ranks, r);
  }
}

TrainResult train_with(const RankLauncher& launch, const Task& task,
                       const OptimizerFactory& make_optimizer, const TrainOptions& options,
                       const TrainHooks& hooks, const CheckpointOptions& checkpoints) {
  const Checkpoint* resume = checkpoints.resume.get();
  CheckpointCollector collector(checkpoints.write,
                                resume ? resume->records : std::vector<StepRecord>{});
  TrainResult result;
  std::atomic<int> world_size{0};  // set by every rank before its first step
  TrainHooks rank_hooks = hooks;
  rank_hooks.on_record = [&](const StepRecord& r) {
    collector.add_record(r);
    if (hooks.on_record) hooks.on_record(r);
  };
  launch([&](Communicator& comm) {
    world_size.store(comm.size());
    TrainHooks mine_hooks = rank_hooks;
    mine_hooks.on_checkpoint = [&](int rank, RankCheckpoint&& state) {
      if (hooks.on_checkpoint) {
        RankCheckpoint copy = state;
        hooks.on_checkpoint(rank, std::move(copy));
      }
      if (!checkpoints.ranks_in_processes) {
        collector.add_state(rank, world_size.load(), std::move(state));
        return;
      }
      std::vector<RankCheckpoint> all = gather_rank_checkpoints(comm, std::move(state));
      for (size_t r = 0; r < all.size(); ++r) {
        collector.add_state(static_cast<int>(r), comm.size(), std::move(all[r]));
      }
    };
    auto optimizer = make_optimizer(task.layout());
    const RankCheckpoint* mine = nullptr;
    if (resume) {
      if (resume->world_size() != comm.size()) {
        throw InvalidArgument(fmt::format("resume: the checkpoint holds {} ranks, this run has {}",
                                          resume->world_size(), comm.size()));
      }
      mine = &resume->ranks[static_cast<size_t>(comm.rank())];
    }
    auto params = train_rank(comm, task, *optimizer, options, mine_hooks, mine);
    if (comm.rank() == 0) result.params = std::move(params);
  });
  result.records = collector.take_records();
  return result;
}

TrainResult train_local(const Task& task, const OptimizerFactory& make_optimizer,
                        const TrainOptions& options, LocalTopology topology,
                        const TrainHooks& hooks, const CheckpointOptions& checkpoints) {
  LocalWorld world({.ranks = topology.ranks, .gpus_per_node = topology.gpus_per_node});
  return train_with([&](const std::function<void(Communicator&)>& fn) { world.run(fn); }, task,
                    make_optimizer, options, hooks, checkpoints);
}

}  // namespace compopt
