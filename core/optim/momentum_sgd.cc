#include "core/optim/momentum_sgd.h"

#include "core/optim/vector_ops.h"

namespace compopt {

MomentumSgd::MomentumSgd(ParamLayout layout, CommonOptions common, MomentumOptions momentum)
    : Optimizer("momentum-sgd", std::move(layout), std::move(common)),
      momentum_(momentum),
      m_(d(), 0.0f),
      g_(d()) {}

void MomentumSgd::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                          float lr) {
  momentum_step(momentum_, params, m_, mean_gradient(comm, grads, g_), lr,
                static_cast<float>(options().weight_decay));
}

}  // namespace compopt
