#include "core/optim/sgd.h"

#include "core/optim/vector_ops.h"

namespace compopt {

Sgd::Sgd(ParamLayout layout, CommonOptions common)
    : Optimizer("sgd", std::move(layout), std::move(common)), g_(d()) {}

void Sgd::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                  float lr) {
  apply_update(params, mean_gradient(comm, grads, g_), lr,
               static_cast<float>(options().weight_decay));
}

}  // namespace compopt
