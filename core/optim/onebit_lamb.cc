#include "core/optim/onebit_lamb.h"

#include <algorithm>
#include <cmath>

#include "core/optim/adam.h"
#include "core/optim/lamb.h"
#include "core/optim/update_kernels.h"
#include "core/optim/vector_ops.h"
#include "core/optim/zero_variance_note.h"
#include "core/util/error.h"

namespace compopt {

OnebitLamb::OnebitLamb(ParamLayout layout, CommonOptions common, OnebitLambOptions options)
    : Optimizer("onebit-lamb", std::move(layout), std::move(common)),
      opt_(std::move(options)),
      channel_(opt_.compressor, this->options().seed),
      m_(d(), 0.0f),
      v_(d(), 0.0f),
      v_fresh_(d(), 0.0f),
      m_prev_(d(), 0.0f),
      buf_(d()) {
  if (opt_.freeze_step < 1) {
    throw InvalidArgument("onebit-lamb: freeze_step = " + std::to_string(opt_.freeze_step) +
                          ", expected an integer >= 1");
  }
  const size_t layers = this->layout().num_tensors();
  c_avg_.assign(layers, 0.0);
  k_.assign(layers, 1.0);
  coefficients_.assign(layers, 0.0);
  ratios_.assign(layers, 0.0);
}

void OnebitLamb::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                         float lr) {
  if (frozen_) {
    compression_step(params, grads, comm, lr);
  } else {
    warmup_step(params, grads, comm, lr);
    if (t_ >= opt_.freeze_step) {
      freeze();
      if (auto note = zero_variance_note(name(), t_, v_, lr, options().eps)) {
        add_note(std::move(*note));
      }
    }
  }
}

void OnebitLamb::warmup_step(std::span<float> params, std::span<const float> grads,
                             Communicator& comm, float lr) {
  const std::span<const float> g = mean_gradient(comm, grads, buf_);
  const AdamScalars s =
      adam_scalars({opt_.beta1, opt_.beta2, false}, t_, static_cast<float>(options().eps), lr,
                   static_cast<float>(options().weight_decay));
  lamb_step(layout(), s, opt_.c_min, opt_.c_max, params, m_, v_, g, buf_, coefficients_);
  for (size_t l = 0; l < layout().num_tensors(); ++l) {
    c_avg_[l] = opt_.beta3 * c_avg_[l] + (1.0 - opt_.beta3) * coefficients_[l];
  }
}

void OnebitLamb::freeze() {
  frozen_ = true;
  v_fresh_ = v_;
  const size_t layers = layout().num_tensors();
  std::vector<double> sigma(layers);
  double mean = 0;
  for (size_t l = 0; l < layers; ++l) {
    const std::span<const float> ml = layout().slice(std::span<const float>(m_), l);
    sigma[l] = l2_norm(ml) / std::sqrt(static_cast<double>(ml.size()));
    mean += sigma[l];
  }
  mean /= static_cast<double>(layers);
  for (size_t l = 0; l < layers; ++l) k_[l] = sigma[l] == 0.0 ? 1.0 : mean / sigma[l];
}

void OnebitLamb::compression_step(std::span<float> params, std::span<const float> grads,
                                  Communicator& comm, float lr) {
  const auto eps = static_cast<float>(options().eps);
  const auto wd = static_cast<float>(options().weight_decay);
  const float b1 = opt_.beta1, b2 = opt_.beta2;
  const UpdateKernels& kernels = update_kernels();
  const size_t layers = layout().num_tensors();
  for (size_t l = 0; l < layers; ++l) {  // m_prev = m; m = ema(m, g) * k_l, one pass
    const size_t off = layout().tensor(l).offset, n = layout().tensor(l).size;
    kernels.lamb_scaled_momentum(m_.data() + off, m_prev_.data() + off, grads.data() + off, b1,
                                 static_cast<float>(k_[l]), n);
  }
  channel_.allreduce_mean(comm, m_, t_);
  for (size_t l = 0; l < layers; ++l) {
    const size_t off = layout().tensor(l).offset, n = layout().tensor(l).size;
    double r =
        kernels.lamb_fresh_ratio(m_.data() + off, m_prev_.data() + off, v_.data() + off,
                                 v_fresh_.data() + off, b1, b2, eps, static_cast<float>(k_[l]), n);
    if (has_ratio_) {
      r = std::clamp(r, (1.0 - opt_.r_threshold) * ratios_[l],
                     (1.0 + opt_.r_threshold) * ratios_[l]);
    }
    r = std::clamp(r, opt_.r_min, opt_.r_max);
    ratios_[l] = r;
    coefficients_[l] = r * c_avg_[l];
    const auto step = static_cast<float>(lr * coefficients_[l]);
    kernels.lamb_update(params.data() + off, m_.data() + off, v_.data() + off, step, eps, wd, n);
  }
  has_ratio_ = true;
}

OptimizerMetrics OnebitLamb::metrics() const {
  OptimizerMetrics out = Optimizer::metrics();
  const L1L2Norms norms = l1_and_l2_norms(frozen_ ? v_fresh_ : v_);
  out.variance_norm = norms.l2;
  out.variance_l1 = norms.l1;
  out.layer_coefficients = coefficients_;
  if (has_ratio_) out.layer_ratios = ratios_;
  return out;
}

void OnebitLamb::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v_frozen", v_);
  state.put("v_fresh", v_fresh_);
  state.put_scalar("frozen", frozen_ ? 1.0 : 0.0);
  state.put_scalar("has_ratio", has_ratio_ ? 1.0 : 0.0);
  state.put_scalars("c_avg", c_avg_);
  state.put_scalars("k", k_);
  state.put_scalars("coefficients", coefficients_);
  state.put_scalars("ratios", ratios_);
  channel_.save(state, "momentum");
}

void OnebitLamb::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v_frozen", v_);
  state.get("v_fresh", v_fresh_);
  frozen_ = state.scalar("frozen") != 0.0;
  has_ratio_ = state.scalar("has_ratio") != 0.0;
  for (auto [key, dst] :
       {std::pair{"c_avg", &c_avg_}, std::pair{"k", &k_}, std::pair{"coefficients", &coefficients_},
        std::pair{"ratios", &ratios_}}) {
    const auto& src = state.scalar_list(key);
    if (src.size() != dst->size()) {
      throw InvalidArgument(std::string("onebit-lamb: checkpoint '") + key + "' has " +
                            std::to_string(src.size()) + " tensors, expected " +
                            std::to_string(dst->size()));
    }
    *dst = src;
  }
  channel_.load(state, "momentum");
}

}  // namespace compopt
