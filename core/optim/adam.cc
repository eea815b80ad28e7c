#include "core/optim/adam.h"

#include <cmath>

#include "core/optim/update_kernels.h"
#include "core/optim/vector_ops.h"

namespace compopt {

AdamScalars adam_scalars(const AdamOptions& o, int64_t t, float eps, float lr, float wd) {
  AdamScalars s{.beta1 = o.beta1, .beta2 = o.beta2, .eps = eps, .lr = lr, .wd = wd};
  if (o.bias_correction) {
    s.c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(o.beta1), static_cast<double>(t)));
    s.c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(o.beta2), static_cast<double>(t)));
  }
  return s;
}

void adam_direction(const AdamOptions& o, int64_t t, float eps, std::span<const float> m,
                    std::span<const float> v, std::span<float> u) {
  const AdamScalars s = adam_scalars(o, t, eps, 0.0f, 0.0f);
  update_kernels().adam_direction(m.data(), v.data(), s.c1, s.c2, eps, u.data(), u.size());
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
  std::span<const float> g = grads;
  if (channel_) {
    std::copy(grads.begin(), grads.end(), g_.begin());
    channel_->allreduce_mean(comm, g_, t_);
    g = g_;
  } else {
    g = mean_gradient(comm, grads, g_);
  }
  const AdamScalars s = adam_scalars(adam_, t_, static_cast<float>(options().eps), lr,
                                     static_cast<float>(options().weight_decay));
  update_kernels().adam_step(params.data(), m_.data(), v_.data(), g.data(), s, d());
  norms_.invalidate();
}

OptimizerMetrics Adam::metrics() const {
  OptimizerMetrics out = Optimizer::metrics();
  norms_.report(v_, out);
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
  norms_.invalidate();
  if (channel_) channel_->load(state, "gradient");
}

}  // namespace compopt
