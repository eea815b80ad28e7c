#pragma once
// Momentum SGD over one compressed allreduce with worker and server error feedback; what
// goes through the compressed channel is the only difference between two methods:
//   kGradient  DoubleSqueeze (Tang et al., ICML 2019): g = compressed_allreduce_mean(g_i);
//              momentum_update(m, g) on the decoded average (beta = 0 gives plain SGD)
//   kMomentum  EF momentum SGD (Zheng et al., NeurIPS 2019): each rank keeps the momentum
//              of its local gradient; the direction u = compressed_allreduce_mean(u_i)
// then x -= lr * (direction + lambda*x). Checkpoints name the channel after what it
// carries ("gradient" / "momentum").

#include <string>

#include "core/optim/compressed_channel.h"
#include "core/optim/momentum.h"
#include "core/optim/optimizer.h"

namespace compopt {

enum class CompressedVector { kGradient, kMomentum };

class CompressedMomentumSgd final : public Optimizer {
 public:
  CompressedMomentumSgd(std::string name, CompressedVector what, ParamLayout layout,
                        CommonOptions common, MomentumOptions momentum,
                        const std::string& compressor);
  Stage stage() const override { return Stage::kCompression; }

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;
  const char* channel_name() const;

  CompressedVector what_;
  MomentumOptions momentum_;
  CompressedChannel channel_;
  std::vector<float> m_, u_;
};

}  // namespace compopt
