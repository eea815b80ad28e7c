#include "core/optim/double_squeeze.h"

#include "core/optim/vector_ops.h"

namespace compopt {

DoubleSqueeze::DoubleSqueeze(ParamLayout layout, CommonOptions common, MomentumOptions momentum,
                             const std::string& compressor)
    : Optimizer("doublesqueeze", std::move(layout), std::move(common)),
      momentum_(momentum),
      channel_(compressor, options().seed),
      m_(d(), 0.0f),
      g_(d()) {}

void DoubleSqueeze::do_step(std::span<float> params, std::span<const float> grads,
                            Communicator& comm, float lr) {
  std::copy(grads.begin(), grads.end(), g_.begin());
  channel_.allreduce_mean(comm, g_, t_);
  momentum_update(momentum_, m_, g_, g_);
  apply_update(params, g_, lr, static_cast<float>(options().weight_decay));
}

void DoubleSqueeze::save(OptimizerState& state) const {
  state.put("m", m_);
  channel_.save(state, "gradient");
}

void DoubleSqueeze::load(const OptimizerState& state) {
  state.get("m", m_);
  channel_.load(state, "gradient");
}

}  // namespace compopt
