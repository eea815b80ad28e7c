#pragma once
// EF momentum SGD (Zheng et al., NeurIPS 2019; docs/algorithms.md): each rank keeps its
// own momentum of its local gradient (momentum_update, paper form by default);
// the momentum direction is averaged with the sign compressed allreduce with
// worker and server EF; x -= lr * (u + lambda*x).

#include <string>

#include "core/optim/compressed_channel.h"
#include "core/optim/momentum.h"
#include "core/optim/optimizer.h"

namespace compopt {

class EfMomentumSgd final : public Optimizer {
 public:
  EfMomentumSgd(ParamLayout layout, CommonOptions common, MomentumOptions momentum,
                const std::string& compressor = "sign");
  Stage stage() const override { return Stage::kCompression; }

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  MomentumOptions momentum_;
  CompressedChannel channel_;
  std::vector<float> m_, u_;
};

}  // namespace compopt
