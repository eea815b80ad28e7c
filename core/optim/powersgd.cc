#include "core/optim/powersgd.h"

#include "core/optim/update_kernels.h"
#include "core/util/error.h"

namespace compopt {

PowerSgd::PowerSgd(std::string name, ParamLayout layout, CommonOptions common,
                   PowerSgdOptions powersgd, int64_t start_iter, Update update)
    : Optimizer(std::move(name), std::move(layout), std::move(common)),
      start_iter_(start_iter),
      update_(update),
      compressor_(this->layout(), powersgd, options().seed),
      m_(d(), 0.0f),
      v_(std::holds_alternative<AdamOptions>(update) ? d() : 0, 0.0f),
      g_(d()) {
  if (start_iter_ < 0) {
    throw InvalidArgument(this->name() + ": start_powerSGD_iter = " + std::to_string(start_iter_) +
                          ", expected >= 0");
  }
}

void PowerSgd::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                       float lr) {
  std::span<const float> g;
  if (t_ <= start_iter_) {
    g = mean_gradient(comm, grads, g_);
  } else {
    compressor_.allreduce_mean(comm, grads, g_, t_, options().wire);
    g = g_;
  }
  const auto wd = static_cast<float>(options().weight_decay);
  if (const auto* momentum = std::get_if<MomentumOptions>(&update_)) {
    momentum_step(*momentum, params, m_, g, lr, wd);
    return;
  }
  const AdamScalars s =
      adam_scalars(std::get<AdamOptions>(update_), t_, static_cast<float>(options().eps), lr, wd);
  update_kernels().adam_step(params.data(), m_.data(), v_.data(), g.data(), s, d());
}

void PowerSgd::save(OptimizerState& state) const {
  state.put("m", m_);
  if (!v_.empty()) state.put("v", v_);
  compressor_.save(state);
}

void PowerSgd::load(const OptimizerState& state) {
  state.get("m", m_);
  if (!v_.empty()) state.get("v", v_);
  compressor_.load(state);
}

}  // namespace compopt
