#include "core/optim/naive_onebit_adam.h"

#include "core/optim/vector_ops.h"

namespace compopt {

NaiveOnebitAdam::NaiveOnebitAdam(ParamLayout layout, CommonOptions common, AdamOptions adam,
                                 const std::string& compressor)
    : Optimizer("naive-onebit-adam", std::move(layout), std::move(common)),
      adam_(adam), channel_(compressor, options().seed), m_(d(), 0.0f), v_(d(), 0.0f), g_(d()) {}

void NaiveOnebitAdam::do_step(std::span<float> params, std::span<const float> grads,
                              Communicator& comm, float lr) {
  std::copy(grads.begin(), grads.end(), g_.begin());
  channel_.allreduce_mean(comm, g_, t_);
  ema(m_, g_, adam_.beta1);
  ema_square(v_, g_, adam_.beta2);
  adam_direction(adam_, t_, static_cast<float>(options().eps), m_, v_, g_);
  apply_update(params, g_, lr, static_cast<float>(options().weight_decay));
}

OptimizerMetrics NaiveOnebitAdam::metrics() const {
  OptimizerMetrics out = Optimizer::metrics();
  out.variance_norm = l2_norm(v_);
  return out;
}

void NaiveOnebitAdam::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v", v_);
  channel_.save(state, "gradient");
}

void NaiveOnebitAdam::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v", v_);
  channel_.load(state, "gradient");
}

}  // namespace compopt
