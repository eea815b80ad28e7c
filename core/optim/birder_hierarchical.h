#pragma once
// Birder, hierarchical ([BIR] §4; docs/algorithms.md): intra-node mean of the gradient;
// the shard owner keeps Birder's m, b for its node-averaged gradient shard and
// rewrites the shard into q = m/(b+eps) (the ShardTransform); then the
// compressed allreduce over nodes and the intra-node allgather of the bits;
// x -= lr * (u + lambda*x).
// The first step splits the communicator; it throws InvalidArgument unless
// every node hosts the same number of ranks. State is per rank (its shard).

#include <memory>
#include <optional>

#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/optim/birder_state.h"
#include "core/optim/optimizer.h"

namespace compopt {

class BirderHierarchical final : public Optimizer {
 public:
  BirderHierarchical(ParamLayout layout, CommonOptions common, BirderOptions birder);
  Stage stage() const override { return Stage::kCompression; }

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void setup(Communicator& comm);
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  BirderOptions birder_;
  std::unique_ptr<Compressor> compressor_;
  const Communicator* world_ = nullptr;
  std::optional<HierarchicalGroups> groups_;
  std::optional<CompressedAllreduceState> ef_;
  BirderState shard_;
  bool shard_loaded_ = false;
  std::vector<float> u_;
};

}  // namespace compopt
