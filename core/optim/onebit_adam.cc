#include "core/optim/onebit_adam.h"

#include "core/optim/adam.h"
#include "core/optim/update_kernels.h"
#include "core/optim/vector_ops.h"
#include "core/optim/zero_variance_note.h"
#include "core/util/error.h"

namespace compopt {

OnebitAdam::OnebitAdam(ParamLayout layout, CommonOptions common, OnebitAdamOptions options)
    : Optimizer(options.uncompressed_momentum ? "onebit-adam-32bit" : "onebit-adam",
                std::move(layout), std::move(common)),
      opt_(std::move(options)),
      channel_(opt_.compressor, this->options().seed),
      m_(d(), 0.0f),
      v_(d(), 0.0f),
      buf_(d()) {
  if (opt_.freeze_step && *opt_.freeze_step < 1) {
    throw InvalidArgument(name() + ": freeze_step = " + std::to_string(*opt_.freeze_step) +
                          ", expected an integer >= 1");
  }
  if (!opt_.freeze_step) {
    detector_.emplace(opt_.beta2, opt_.threshold, this->options().schedule->warmup_steps());
  }
}

std::optional<int64_t> OnebitAdam::earliest_automatic_stage_change() const {
  return detector_ ? std::optional<int64_t>(detector_->earliest_step()) : std::nullopt;
}

std::optional<int64_t> OnebitAdam::freeze_step() const {
  return frozen_ ? std::optional<int64_t>(frozen_at_) : std::nullopt;
}

void OnebitAdam::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                         float lr) {
  const auto eps = static_cast<float>(options().eps);
  const auto wd = static_cast<float>(options().weight_decay);
  const AdamScalars s = adam_scalars({opt_.beta1, opt_.beta2, false}, t_, eps, lr, wd);
  const UpdateKernels& kernels = update_kernels();
  if (!frozen_) {
    const std::span<const float> g = mean_gradient(comm, grads, buf_);
    kernels.adam_step(params.data(), m_.data(), v_.data(), g.data(), s, d());
    norms_.invalidate();
    const bool fire =
        detector_ ? detector_->observe(t_, norms_.of(v_).l1) : t_ >= *opt_.freeze_step;
    if (fire) {
      frozen_ = true;
      frozen_at_ = t_;
      if (auto note = zero_variance_note(name(), t_, v_, lr, eps)) add_note(std::move(*note));
    }
    return;
  }
  ema(m_, grads, opt_.beta1);
  if (opt_.uncompressed_momentum) {
    allreduce_mean(comm, m_);
  } else {
    channel_.allreduce_mean(comm, m_, t_);
  }
  kernels.adam_apply(params.data(), m_.data(), v_.data(), s, d());
}

OptimizerMetrics OnebitAdam::metrics() const {
  OptimizerMetrics out = Optimizer::metrics();
  norms_.report(v_, out);  // summed once per change of v
  if (detector_) out.variance_ratio = detector_->last_ratio();
  return out;
}

void OnebitAdam::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v", v_);
  state.put_scalar("frozen", frozen_ ? 1.0 : 0.0);
  state.put_scalar("frozen_at", static_cast<double>(frozen_at_));
  if (detector_) detector_->save(state, "detector");
  channel_.save(state, "momentum");
}

void OnebitAdam::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v", v_);
  norms_.invalidate();
  frozen_ = state.scalar("frozen") != 0.0;
  frozen_at_ = static_cast<int64_t>(state.scalar("frozen_at"));
  if (detector_) detector_->load(state, "detector");
  channel_.load(state, "momentum");
}

}  // namespace compopt
