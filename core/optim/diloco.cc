#include "core/optim/diloco.h"

#include <algorithm>
#include <string_view>

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

std::string channel_prefix(size_t fragment) { return "fragment" + std::to_string(fragment); }

// p of a key "fragment<p>.worker_ef" (saved by a fragment's compressed channel), else nullopt.
std::optional<size_t> channel_of(const std::string& key) {
  constexpr std::string_view kHead = "fragment", kTail = ".worker_ef";
  if (key.size() <= kHead.size() + kTail.size() || !key.starts_with(kHead) ||
      !key.ends_with(kTail)) {
    return std::nullopt;
  }
  const std::string digits = key.substr(kHead.size(), key.size() - kHead.size() - kTail.size());
  if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return static_cast<size_t>(std::stoull(digits));
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
}

std::optional<size_t> Diloco::sender_at(int64_t t) const {
  if (t < 1) return std::nullopt;
  const int64_t spacing = o_.inner_steps / o_.fragments, phase = t % o_.inner_steps;
  if (phase % spacing != 0) return std::nullopt;
  return static_cast<size_t>((phase == 0 ? o_.fragments : phase / spacing) - 1);
}

Diloco::Range Diloco::fragment(size_t p) const {
  const auto f = static_cast<size_t>(o_.fragments);
  const size_t size = d() / f, longer = d() % f;
  const size_t begin = p * size + std::min(p, longer);
  return {begin, begin + size + (p < longer ? 1 : 0)};
}

void Diloco::send(size_t p, std::span<const float> params, Communicator& comm) {
  const Range r = fragment(p);
  for (size_t j = r.begin; j < r.end; ++j) in_flight_[j] = anchor_[j] - params[j];
  const std::span<float> delta = std::span<float>(in_flight_).subspan(r.begin, r.end - r.begin);
  if (delta.empty()) return;
  if (!o_.outer_compressor) {
    allreduce_mean(comm, delta);
    return;
  }
  channels_.try_emplace(p, *o_.outer_compressor, options().seed)
      .first->second.allreduce_mean(comm, delta, t_);
}

void Diloco::merge(size_t p, std::span<float> params) {
  const float mu = o_.outer_momentum, eta = o_.outer_lr, alpha = o_.mixing;
  const Range r = fragment(p);
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
  if (const auto p = sender_at(t_)) send(*p, params, comm);
  if (const auto p = sender_at(t_ - o_.overlap_steps)) merge(*p, params);
}

void Diloco::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v", v_);
  state.put("anchor", anchor_);
  state.put("outer_momentum", outer_m_);
  state.put("in_flight", in_flight_);
  for (const auto& [p, channel] : channels_) channel.save(state, channel_prefix(p));
}

void Diloco::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v", v_);
  state.get("anchor", anchor_);
  state.get("outer_momentum", outer_m_);
  state.get("in_flight", in_flight_);
  channels_.clear();
  if (!o_.outer_compressor) return;
  for (const auto& entry : state.tensors) {
    const std::string& key = entry.first;
    const std::optional<size_t> p = channel_of(key);
    if (!p) continue;
    if (*p >= static_cast<size_t>(o_.fragments)) {
      throw InvalidArgument(name() + ": state holds '" + key + "', but there are " +
                            std::to_string(o_.fragments) + " fragments");
    }
    channels_.try_emplace(*p, *o_.outer_compressor, options().seed)
        .first->second.load(state, channel_prefix(*p));
  }
}

}  // namespace compopt
