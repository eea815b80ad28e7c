#include "core/optim/birder_hierarchical.h"

#include "core/optim/compressed_channel.h"
#include "core/optim/vector_ops.h"
#include "core/util/error.h"

namespace compopt {

BirderHierarchical::BirderHierarchical(ParamLayout layout, CommonOptions common,
                                       BirderOptions birder)
    : Optimizer("birder-hierarchical", std::move(layout), std::move(common)),
      birder_(std::move(birder)),
      compressor_(make_compressor(birder_.compressor)),
      u_(d()) {}

void BirderHierarchical::setup(Communicator& comm) {
  if (comm.size() % comm.num_nodes() != 0) {
    throw InvalidArgument("birder-hierarchical: " + std::to_string(comm.size()) +
                          " ranks do not divide evenly into " + std::to_string(comm.num_nodes()) +
                          " nodes; expected the same number of ranks on every node");
  }
  try {
    groups_.emplace(HierarchicalGroups::split(comm));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("birder-hierarchical: ") + e.what());
  }
  world_ = &comm;
  CompressedAllreduceState fresh = hierarchical_state(d(), *groups_);
  if (ef_) {
    if (ef_->worker.size() != fresh.worker.size() || ef_->server.size() != fresh.server.size()) {
      throw InvalidArgument(
          "birder-hierarchical: checkpoint error feedback was sized for another "
          "node layout");
    }
  } else {
    ef_.emplace(std::move(fresh));
  }
  const size_t shard = hierarchical_padded_length(d(), groups_->nodes(), groups_->gpus_per_node()) /
                       static_cast<size_t>(groups_->gpus_per_node());
  if (!shard_loaded_) {
    shard_ = BirderState(shard);
  } else if (shard_.size() != shard) {
    throw InvalidArgument("birder-hierarchical: checkpoint shard has " +
                          std::to_string(shard_.size()) + " elements, expected " +
                          std::to_string(shard) + " for this node layout");
  }
}

void BirderHierarchical::do_step(std::span<float> params, std::span<const float> grads,
                                 Communicator& comm, float lr) {
  if (world_ != &comm) setup(comm);
  std::copy(grads.begin(), grads.end(), u_.begin());
  const auto eps = static_cast<float>(options().eps);
  const int64_t t = t_;
  const ShardTransform transform = [this, t, eps](std::span<float> shard, size_t) {
    if (shard.size() != shard_.size()) {
      throw InvalidArgument("birder-hierarchical: shard of " + std::to_string(shard.size()) +
                            " elements, expected " + std::to_string(shard_.size()));
    }
    shard_.update(birder_, t, eps, shard, shard);
  };
  RandomKey key;
  key.seed = options().seed;
  key.step = static_cast<uint64_t>(t_);
  comm.hierarchical_compressed_allreduce(*groups_, u_, *compressor_, *ef_, key, transform);
  apply_update(params, u_, lr, static_cast<float>(options().weight_decay));
}

void BirderHierarchical::save(OptimizerState& state) const {
  if (shard_.size() != 0) shard_.save(state, "birder_shard");
  if (ef_) save_ef_state(*ef_, state, "update");
}

void BirderHierarchical::load(const OptimizerState& state) {
  shard_loaded_ = state.tensors.count("birder_shard.m") != 0;
  if (shard_loaded_) shard_.load(state, "birder_shard", 0);
  ef_ = load_ef_state(state, "update");
  world_ = nullptr;
  groups_.reset();
}

}  // namespace compopt
