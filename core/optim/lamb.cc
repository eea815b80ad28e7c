#include "core/optim/lamb.h"

#include <algorithm>

#include "core/optim/vector_ops.h"

namespace compopt {

double lamb_coefficient(double param_norm, double update_norm, double c_min, double c_max) {
  if (param_norm == 0.0 || update_norm == 0.0) return 1.0;
  return std::clamp(param_norm / update_norm, c_min, c_max);
}

Lamb::Lamb(ParamLayout layout, CommonOptions common, LambOptions lamb)
    : Optimizer("lamb", std::move(layout), std::move(common)),
      lamb_(lamb),
      m_(d(), 0.0f),
      v_(d(), 0.0f),
      g_(d()),
      coefficients_(this->layout().num_tensors(), 0.0) {}

void Lamb::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                   float lr) {
  std::copy(grads.begin(), grads.end(), g_.begin());
  allreduce_mean(comm, g_);
  ema(m_, g_, lamb_.adam.beta1);
  ema_square(v_, g_, lamb_.adam.beta2);
  std::span<float> u(g_);
  adam_direction(lamb_.adam, t_, static_cast<float>(options().eps), m_, v_, u);
  const auto wd = static_cast<float>(options().weight_decay);
  for (size_t l = 0; l < layout().num_tensors(); ++l) {
    auto x = layout().slice(params, l);
    auto ul = layout().slice(u, l);
    add_scaled(ul, x, wd);
    const double c = lamb_coefficient(l2_norm(x), l2_norm(ul), lamb_.c_min, lamb_.c_max);
    coefficients_[l] = c;
    const auto step = static_cast<float>(lr * c);
    subtract_scaled(x, ul, step);
  }
}

OptimizerMetrics Lamb::metrics() const {
  OptimizerMetrics out = Optimizer::metrics();
  out.variance_norm = l2_norm(v_);
  out.variance_l1 = l1_norm(v_);
  out.layer_coefficients = coefficients_;
  return out;
}

void Lamb::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v", v_);
  state.put_scalars("coefficients", coefficients_);
}

void Lamb::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v", v_);
  coefficients_ = state.scalar_list("coefficients");
}

}  // namespace compopt
