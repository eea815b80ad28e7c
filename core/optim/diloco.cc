#include "core/optim/diloco.h"

#include <algorithm>

#include "core/optim/update_kernels.h"
#include "core/util/error.h"

namespace compopt {
namespace {

void check_options(const std::string& name, const DilocoOptions& o) {
  const auto fail = [&](const std::string& what) { throw InvalidArgument(name + ": " + what); };
  if (o.inner_steps < 1) {
    fail("key 'inner_steps' = " + std::to_string(o.inner_steps) + ", expected an integer >= 1");
  }
  if (o.fragments < 1 || o.inner_steps % o.fragments != 0) {
    fail("key 'fragments' = " + std::to_string(o.fragments) +
         ", expected an integer >= 1 that divides inner_steps = " + std::to_string(o.inner_steps));
  }
  if (o.overlap_steps < 0 || o.overlap_steps >= o.inner_steps) {
    fail("key 'overlap_steps' = " + std::to_string(o.overlap_steps) +
         ", expected an integer in [0, inner_steps) = [0, " + std::to_string(o.inner_steps) + ")");
  }
  if (!(o.mixing >= 0.0f && o.mixing <= 1.0f)) {
    fail("key 'mixing' = " + std::to_string(o.mixing) + ", expected a number in [0, 1]");
  }
}

}  // namespace

Diloco::Diloco(std::string name, ParamLayout layout, CommonOptions common, DilocoOptions options)
    : Optimizer(std::move(name), std::move(layout), std::move(common)),
      o_(std::move(options)),
      m_(d(), 0.0f),
      v_(d(), 0.0f),
      anchor_(d(), 0.0f),
      outer_m_(d(), 0.0f),
      in_flight_(d(), 0.0f) {
  check_options(this->name(), o_);
  const auto f = static_cast<size_t>(o_.fragments);
  for (size_t p = 0; p < f; ++p) fragments_.push_back({p * d() / f, (p + 1) * d() / f});
  if (o_.outer_compressor) {
    for (size_t p = 0; p < f; ++p)
      channels_.emplace_back(*o_.outer_compressor, Optimizer::options().seed);
  }
}

bool Diloco::sends_at(size_t fragment, int64_t t) const {
  const int64_t offset = static_cast<int64_t>(fragment + 1) * (o_.inner_steps / o_.fragments);
  return t >= offset && (t - offset) % o_.inner_steps == 0;
}

void Diloco::send(size_t p, std::span<const float> params, Communicator& comm) {
  const Range r = fragments_[p];
  for (size_t j = r.begin; j < r.end; ++j) in_flight_[j] = anchor_[j] - params[j];
  const std::span<float> delta = std::span<float>(in_flight_).subspan(r.begin, r.end - r.begin);
  if (delta.empty()) return;
  if (channels_.empty()) {
    allreduce_mean(comm, delta);
  } else {
    channels_[p].allreduce_mean(comm, delta, t_);
  }
}

void Diloco::merge(size_t p, std::span<float> params) {
  const float mu = o_.outer_momentum, eta = o_.outer_lr, alpha = o_.mixing;
  const Range r = fragments_[p];
  for (size_t j = r.begin; j < r.end; ++j) {
    const float delta = in_flight_[j];
    outer_m_[j] = mu * outer_m_[j] + delta;
    anchor_[j] -= eta * (delta + mu * outer_m_[j]);
    params[j] = alpha == 0.0f ? anchor_[j] : alpha * params[j] + (1.0f - alpha) * anchor_[j];
  }
}

void Diloco::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                     float lr) {
  if (t_ == 1) std::copy(params.begin(), params.end(), anchor_.begin());
  const AdamScalars s = adam_scalars(o_.inner, t_, static_cast<float>(options().eps), lr,
                                     static_cast<float>(options().weight_decay));
  update_kernels().adam_step(params.data(), m_.data(), v_.data(), grads.data(), s, d());
  for (size_t p = 0; p < fragments_.size(); ++p) {
    if (sends_at(p, t_)) send(p, params, comm);
  }
  for (size_t p = 0; p < fragments_.size(); ++p) {
    if (sends_at(p, t_ - o_.overlap_steps)) merge(p, params);
  }
}

void Diloco::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v", v_);
  state.put("anchor", anchor_);
  state.put("outer_momentum", outer_m_);
  state.put("in_flight", in_flight_);
  for (size_t p = 0; p < channels_.size(); ++p) {
    channels_[p].save(state, "fragment" + std::to_string(p));
  }
}

void Diloco::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v", v_);
  state.get("anchor", anchor_);
  state.get("outer_momentum", outer_m_);
  state.get("in_flight", in_flight_);
  for (size_t p = 0; p < channels_.size(); ++p) {
    channels_[p].load(state, "fragment" + std::to_string(p));
  }
}

}  // namespace compopt
