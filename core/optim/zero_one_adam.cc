#include "core/optim/zero_one_adam.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/optim/adam.h"
#include "core/optim/vector_ops.h"
#include "core/optim/zero_variance_note.h"
#include "core/util/error.h"

namespace compopt {

ZeroOneAdam::ZeroOneAdam(ParamLayout layout, CommonOptions common, ZeroOneAdamOptions options)
    : Optimizer("zero-one-adam", std::move(layout), std::move(common)),
      opt_(std::move(options)),
      schedule_(opt_.schedule),
      channel_(opt_.compressor, this->options().seed),
      m_(d(), 0.0f),
      v_(d(), 0.0f),
      buf_(d()) {}

Stage ZeroOneAdam::stage() const {
  const int64_t next = t_ + 1;
  return !schedule_.frozen(next) && schedule_.variance_step(next) ? Stage::kWarmup
                                                                  : Stage::kCompression;
}

void ZeroOneAdam::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                          float lr) {
  const auto eps = static_cast<float>(options().eps);
  const auto wd = static_cast<float>(options().weight_decay);
  const AdamScalars s = adam_scalars({opt_.beta1, opt_.beta2, false}, t_, eps, lr, wd);
  if (schedule_.frozen(t_)) {
    local_step(params, grads, comm, s);
  } else {
    variance_phase_step(params, grads, comm, s);
  }
  schedule_.advance(t_);
  if (t_ == opt_.schedule.var_freeze_step) freeze(params, lr);
}

void ZeroOneAdam::variance_phase_step(std::span<float> params, std::span<const float> grads,
                                      Communicator& comm, const AdamScalars& s) {
  const UpdateKernels& kernels = update_kernels();
  if (schedule_.variance_step(t_)) {
    const std::span<const float> g = mean_gradient(comm, grads, buf_);
    kernels.adam_step(params.data(), m_.data(), v_.data(), g.data(), s, d());
    norms_.invalidate();
    return;
  }
  std::copy(grads.begin(), grads.end(), buf_.begin());
  channel_.allreduce_mean(comm, buf_, t_);
  ema(m_, buf_, opt_.beta1);
  kernels.adam_apply(params.data(), m_.data(), v_.data(), s, d());
}

void ZeroOneAdam::local_step(std::span<float> params, std::span<const float> grads,
                             Communicator& comm, const AdamScalars& s) {
  ema(m_, grads, opt_.beta1);
  update_kernels().adam_apply(params.data(), m_.data(), v_.data(), s, d());
  lr_sum_ += static_cast<double>(s.lr);
  if (schedule_.sync_step(t_)) synchronise(params, comm);
}

void ZeroOneAdam::synchronise(std::span<float> params, Communicator& comm) {
  const auto eps = static_cast<float>(options().eps);
  for (size_t j = 0; j < d(); ++j) {
    buf_[j] = (params[j] - anchor_[j]) * (std::sqrt(v_[j]) + eps);
  }
  channel_.allreduce_mean(comm, buf_, t_);
  const float inv_sum = lr_sum_ > 0 ? static_cast<float>(1.0 / lr_sum_) : 0.0f;
  for (size_t j = 0; j < d(); ++j) {
    const float u = buf_[j];
    m_[j] = -u * inv_sum;
    params[j] = anchor_[j] + u / (std::sqrt(v_[j]) + eps);
    anchor_[j] = params[j];
  }
  lr_sum_ = 0;
}

// After step var_freeze_step: x_a = x, fresh error feedback for the accumulated momentum.
void ZeroOneAdam::freeze(std::span<const float> params, float lr) {
  anchor_.assign(params.begin(), params.end());
  channel_ = CompressedChannel(opt_.compressor, options().seed);
  if (auto note = zero_variance_note(name(), t_, v_, lr, static_cast<float>(options().eps))) {
    add_note(std::move(*note));
  }
}

OptimizerMetrics ZeroOneAdam::metrics() const {
  OptimizerMetrics out = Optimizer::metrics();
  norms_.report(v_, out);
  return out;
}

void ZeroOneAdam::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v", v_);
  if (!anchor_.empty()) state.put("anchor", anchor_);
  state.put_scalar("lr_sum", lr_sum_);
  schedule_.save(state, "schedule");
  channel_.save(state, "momentum");
}

void ZeroOneAdam::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v", v_);
  norms_.invalidate();
  const auto step = static_cast<int64_t>(state.scalar("step"));
  const bool frozen = step >= opt_.schedule.var_freeze_step;
  if (state.has("anchor") != frozen) {
    throw InvalidArgument(
        name() + ": the checkpoint of step " + std::to_string(step) +
        (frozen ? " has no" : " has a") +
        " frozen phase, unlike var_freeze_step = " + std::to_string(opt_.schedule.var_freeze_step) +
        "; expected the var_freeze_step it was written with");
  }
  if (frozen) {
    anchor_.resize(d());
    state.get("anchor", anchor_);
  } else {
    anchor_.clear();
  }
  lr_sum_ = state.scalar("lr_sum");
  schedule_.load(state, "schedule");
  channel_.load(state, "momentum");
}

}  // namespace compopt
