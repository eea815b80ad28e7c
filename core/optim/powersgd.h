#pragma once
// PowerSGD (Vogels, Karimireddy & Jaggi, NeurIPS 2019, Algorithm 2 with the optimizer of
// Algorithm 1 as PyTorch's DDP hook powerSGD_hook runs it): the first start_powerSGD_iter steps
// (warmup) ring-average the gradient, g = allreduce_mean(g_i); later steps (compression)
// take g from PowerSgdCompressor (powersgd_compressor.h): rank-r factors P and Q of each
// gradient matrix, allreduced, with error feedback and a warm-started Q. Then one update
// from g:
//   momentum ('powersgd'):  momentum_update (paper or PyTorch form); x -= lr*(dir + lambda*x)
//   Adam ('powersgd-adam'): the Adam update of adam.h on g
// save()/load() hold the moments, the error feedback and Q; the stage follows from the step.

#include <string>
#include <variant>
#include <vector>

#include "core/optim/adam.h"
#include "core/optim/momentum.h"
#include "core/optim/optimizer.h"
#include "core/optim/powersgd_compressor.h"

namespace compopt {

class PowerSgd final : public Optimizer {
 public:
  using Update = std::variant<MomentumOptions, AdamOptions>;
  // start_iter: start_powerSGD_iter, the number of warmup steps (>= 0).
  PowerSgd(std::string name, ParamLayout layout, CommonOptions common, PowerSgdOptions powersgd,
           int64_t start_iter, Update update);
  Stage stage() const override { return t_ < start_iter_ ? Stage::kWarmup : Stage::kCompression; }

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  int64_t start_iter_;
  Update update_;
  PowerSgdCompressor compressor_;
  std::vector<float> m_, v_, g_;  // v_ empty for momentum
};

}  // namespace compopt
