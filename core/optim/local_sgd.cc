#include "core/optim/local_sgd.h"

#include "core/optim/vector_ops.h"
#include "core/util/error.h"

namespace compopt {

LocalSgd::LocalSgd(ParamLayout layout, CommonOptions common, int64_t tau,
                   std::optional<MomentumOptions> momentum)
    : Optimizer(momentum ? "local-momentum-sgd" : "local-sgd", std::move(layout),
                std::move(common)),
      tau_(tau),
      momentum_(momentum),
      m_(momentum ? d() : 0, 0.0f) {
  if (tau_ < 1) {
    throw InvalidArgument(name() + ": tau = " + std::to_string(tau_) +
                          ", expected an integer >= 1");
  }
}

void LocalSgd::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                       float lr) {
  const auto wd = static_cast<float>(options().weight_decay);
  if (momentum_) {
    momentum_step(*momentum_, params, m_, grads, lr, wd);
  } else {
    apply_update(params, grads, lr, wd);
  }
  if (t_ % tau_ == 0) {
    allreduce_mean(comm, params);
    if (momentum_) allreduce_mean(comm, m_);
  }
}

void LocalSgd::save(OptimizerState& state) const {
  if (momentum_) state.put("m", m_);
}

void LocalSgd::load(const OptimizerState& state) {
  if (momentum_) state.get("m", m_);
}

}  // namespace compopt
