#include "core/optim/birder_state.h"

#include "core/optim/update_kernels.h"
#include "core/util/error.h"

namespace compopt {

void BirderState::update(const BirderOptions& o, int64_t t, float eps, std::span<const float> g,
                         std::span<float> q) {
  const bool use_max = o.amsgrad_max && t > o.amsgrad_start;
  update_kernels().birder(m_.data(), b_hat_.data(), b_.data(), g.data(), q.data(), o.beta, eps,
                          use_max, g.size());
}

void BirderState::save(OptimizerState& state, const std::string& prefix) const {
  state.put(prefix + ".m", m_);
  state.put(prefix + ".b_hat", b_hat_);
  state.put(prefix + ".b", b_);
}

void BirderState::load(const OptimizerState& state, const std::string& prefix, size_t expected) {
  const size_t n = state.tensor(prefix + ".m").size();
  if (expected != 0 && n != expected) {
    throw InvalidArgument("birder: checkpoint state has " + std::to_string(n) +
                          " elements, expected " + std::to_string(expected));
  }
  m_.resize(n);
  b_hat_.resize(n);
  b_.resize(n);
  state.get(prefix + ".m", m_);
  state.get(prefix + ".b_hat", b_hat_);
  state.get(prefix + ".b", b_);
}

}  // namespace compopt
