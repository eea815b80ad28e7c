#include "core/optim/adam.h"

#include <cmath>

#include "core/optim/update_kernels.h"
#include "core/optim/vector_ops.h"

namespace compopt {

void adam_direction(const AdamOptions& o, int64_t t, float eps, std::span<const float> m,
                    std::span<const float> v, std::span<float> u) {
  float c1 = 1.0f, c2 = 1.0f;
  if (o.bias_correction) {
    c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(o.beta1), static_cast<double>(t)));
    c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(o.beta2), static_cast<double>(t)));
  }
  update_kernels().adam_direction(m.data(), v.data(), c1, c2, eps, u.data(), u.size());
}

Adam::Adam(std::string name, ParamLayout layout, CommonOptions common, AdamOptions adam,
           const std::optional<std::string>& gradient_compressor)
    : Optimizer(std::move(name), std::move(layout), std::move(common)),
      adam_(adam),
      m_(d(), 0.0f),
      v_(d(), 0.0f),
      g_(d()) {
  if (gradient_compressor) channel_.emplace(*gradient_compressor, options().seed);
}

void Adam::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                   float lr) {
  std::copy(grads.begin(), grads.end(), g_.begin());
  if (channel_) {
    channel_->allreduce_mean(comm, g_, t_);
  } else {
    allreduce_mean(comm, g_);
  }
  ema(m_, g_, adam_.beta1);
  ema_square(v_, g_, adam_.beta2);
  adam_direction(adam_, t_, static_cast<float>(options().eps), m_, v_, g_);
  apply_update(params, g_, lr, static_cast<float>(options().weight_decay));
}

OptimizerMetrics Adam::metrics() const {
  OptimizerMetrics out = Optimizer::metrics();
  out.variance_norm = l2_norm(v_);
  out.variance_l1 = l1_norm(v_);
  return out;
}

void Adam::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v", v_);
  if (channel_) channel_->save(state, "gradient");
}

void Adam::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v", v_);
  if (channel_) channel_->load(state, "gradient");
}

}  // namespace compopt
