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

}  // namespace compopt
