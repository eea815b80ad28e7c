#include "core/optim/ef_momentum_sgd.h"

#include "core/optim/vector_ops.h"

namespace compopt {

EfMomentumSgd::EfMomentumSgd(ParamLayout layout, CommonOptions common, MomentumOptions momentum,
                             const std::string& compressor)
    : Optimizer("ef-momentum-sgd", std::move(layout), std::move(common)),
      momentum_(momentum),
      channel_(compressor, options().seed),
      m_(d(), 0.0f),
      u_(d()) {}

void EfMomentumSgd::do_step(std::span<float> params, std::span<const float> grads,
                            Communicator& comm, float lr) {
  momentum_update(momentum_, m_, grads, u_);
  channel_.allreduce_mean(comm, u_, t_);
  apply_update(params, u_, lr, static_cast<float>(options().weight_decay));
}

void EfMomentumSgd::save(OptimizerState& state) const {
  state.put("m", m_);
  channel_.save(state, "momentum");
}

void EfMomentumSgd::load(const OptimizerState& state) {
  state.get("m", m_);
  channel_.load(state, "momentum");
}

}  // namespace compopt
