#pragma once
// Birder, flat ([BIR] Alg. 1; docs/algorithms.md): each rank keeps m, b over its local
// gradient (BirderState); q = m/(b+eps) goes through the compressed allreduce
// (binary compressor, worker + server EF); x -= lr * (u + lambda*x).
// No warmup stage.

#include "core/optim/birder_state.h"
#include "core/optim/compressed_channel.h"
#include "core/optim/optimizer.h"

namespace compopt {

class Birder final : public Optimizer {
 public:
  Birder(ParamLayout layout, CommonOptions common, BirderOptions birder);
  Stage stage() const override { return Stage::kCompression; }

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  BirderOptions birder_;
  CompressedChannel channel_;
  BirderState state_;
  std::vector<float> q_;
};

}  // namespace compopt
