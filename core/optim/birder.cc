#include "core/optim/birder.h"

#include "core/optim/vector_ops.h"

namespace compopt {

Birder::Birder(ParamLayout layout, CommonOptions common, BirderOptions birder)
    : Optimizer("birder", std::move(layout), std::move(common)),
      birder_(std::move(birder)),
      channel_(birder_.compressor, options().seed),
      state_(d()),
      q_(d()) {}

void Birder::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                     float lr) {
  state_.update(birder_, t_, static_cast<float>(options().eps), grads, q_);
  channel_.allreduce_mean(comm, q_, t_);
  apply_update(params, q_, lr, static_cast<float>(options().weight_decay));
}

void Birder::save(OptimizerState& state) const {
  state_.save(state, "birder");
  channel_.save(state, "update");
}

void Birder::load(const OptimizerState& state) {
  state_.load(state, "birder", d());
  channel_.load(state, "update");
}

}  // namespace compopt
