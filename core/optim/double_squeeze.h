#pragma once
// DoubleSqueeze (Tang et al., ICML 2019; docs/algorithms.md): the gradient is averaged
// with the sign compressed allreduce with worker and server EF; then momentum
// SGD on the decoded average (beta = 0 gives plain SGD):
// g = compressed_allreduce_mean(g_i); momentum_update(m, g); x -= lr*(dir + lambda*x).

#include <string>

#include "core/optim/compressed_channel.h"
#include "core/optim/momentum.h"
#include "core/optim/optimizer.h"

namespace compopt {

class DoubleSqueeze final : public Optimizer {
 public:
  DoubleSqueeze(ParamLayout layout, CommonOptions common, MomentumOptions momentum,
                const std::string& compressor = "sign");
  Stage stage() const override { return Stage::kCompression; }

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  MomentumOptions momentum_;
  CompressedChannel channel_;
  std::vector<float> m_, g_;
};

}  // namespace compopt
