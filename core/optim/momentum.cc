#include "core/optim/momentum.h"

#include "core/optim/update_kernels.h"

namespace compopt {

void momentum_update(const MomentumOptions& o, std::span<float> m, std::span<const float> g,
                     std::span<float> dir) {
  const UpdateKernels& kernels = update_kernels();
  const auto kernel =
      o.form == MomentumForm::kPaper ? kernels.momentum_paper : kernels.momentum_pytorch;
  kernel(m.data(), g.data(), o.beta, o.nesterov, dir.data(), m.size());
}

void momentum_step(const MomentumOptions& o, std::span<float> x, std::span<float> m,
                   std::span<const float> g, float lr, float wd) {
  const UpdateKernels& kernels = update_kernels();
  const auto kernel =
      o.form == MomentumForm::kPaper ? kernels.momentum_paper_step : kernels.momentum_pytorch_step;
  kernel(x.data(), m.data(), g.data(), o.beta, o.nesterov, lr, wd, m.size());
}

}  // namespace compopt
