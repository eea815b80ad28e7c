#pragma once
// Momentum SGD (docs/algorithms.md): g = allreduce_mean(g_i); m and the direction from
// momentum_update (paper or PyTorch form, optional Nesterov);
// x -= lr * (direction + lambda*x).

#include "core/optim/momentum.h"
#include "core/optim/optimizer.h"

namespace compopt {

class MomentumSgd final : public Optimizer {
 public:
  MomentumSgd(ParamLayout layout, CommonOptions common, MomentumOptions momentum);

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override { state.put("m", m_); }
  void load(const OptimizerState& state) override { state.get("m", m_); }

  MomentumOptions momentum_;
  std::vector<float> m_, g_;
};

}  // namespace compopt
