#include "core/optim/compressed_momentum_sgd.h"

#include "core/optim/vector_ops.h"

namespace compopt {

CompressedMomentumSgd::CompressedMomentumSgd(std::string name, CompressedVector what,
                                             ParamLayout layout, CommonOptions common,
                                             MomentumOptions momentum,
                                             const std::string& compressor)
    : Optimizer(std::move(name), std::move(layout), std::move(common)),
      what_(what),
      momentum_(momentum),
      channel_(compressor, options().seed),
      m_(d(), 0.0f),
      u_(d()) {}

void CompressedMomentumSgd::do_step(std::span<float> params, std::span<const float> grads,
                                    Communicator& comm, float lr) {
  const auto wd = static_cast<float>(options().weight_decay);
  if (what_ == CompressedVector::kGradient) {
    std::copy(grads.begin(), grads.end(), u_.begin());
    channel_.allreduce_mean(comm, u_, t_);
    momentum_step(momentum_, params, m_, u_, lr, wd);
    return;
  }
  momentum_update(momentum_, m_, grads, u_);
  channel_.allreduce_mean(comm, u_, t_);
  apply_update(params, u_, lr, wd);
}

const char* CompressedMomentumSgd::channel_name() const {
  return what_ == CompressedVector::kGradient ? "gradient" : "momentum";
}

void CompressedMomentumSgd::save(OptimizerState& state) const {
  state.put("m", m_);
  channel_.save(state, channel_name());
}

void CompressedMomentumSgd::load(const OptimizerState& state) {
  state.get("m", m_);
  channel_.load(state, channel_name());
}

}  // namespace compopt
