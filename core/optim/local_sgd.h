#pragma once
// Local SGD and local momentum SGD (docs/algorithms.md): every rank steps on its own
// gradient, x -= lr*(dir + lambda*x) with dir = g_i (local-sgd) or the local
// momentum direction (local-momentum-sgd); after every tau-th step the
// parameters (and the momentum) are replaced by their allreduce_mean. Ranks'
// parameters are bit-identical only after those synchronizing steps.

#include <optional>

#include "core/optim/momentum.h"
#include "core/optim/optimizer.h"

namespace compopt {

class LocalSgd final : public Optimizer {
 public:
  // momentum == nullopt: local-sgd; else local-momentum-sgd. tau >= 1.
  LocalSgd(ParamLayout layout, CommonOptions common, int64_t tau,
           std::optional<MomentumOptions> momentum);
  Stage stage() const override { return Stage::kLocal; }
  int64_t tau() const { return tau_; }

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  int64_t tau_;
  std::optional<MomentumOptions> momentum_;
  std::vector<float> m_;
};

}  // namespace compopt
