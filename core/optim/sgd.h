#pragma once
// SGD (docs/algorithms.md): g = allreduce_mean(g_i); x -= lr * (g + lambda*x).

#include "core/optim/optimizer.h"

namespace compopt {

class Sgd final : public Optimizer {
 public:
  Sgd(ParamLayout layout, CommonOptions common);

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState&) const override {}
  void load(const OptimizerState&) override {}

  std::vector<float> g_;
};

}  // namespace compopt
