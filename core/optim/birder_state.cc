#include "core/optim/birder_state.h"

#include <algorithm>
#include <cmath>

#include "core/util/error.h"

namespace compopt {

void BirderState::update(const BirderOptions& o, int64_t t, float eps, std::span<float> g) {
  const float beta = o.beta;
  const bool use_max = o.amsgrad_max && t > o.amsgrad_start;
  for (size_t j = 0; j < g.size(); ++j) {
    m_[j] = beta * m_[j] + (1.0f - beta) * g[j];
    b_hat_[j] = beta * b_hat_[j] + (1.0f - beta) * std::fabs(g[j]);
    b_[j] = use_max ? std::max(b_[j], b_hat_[j]) : b_hat_[j];
    g[j] = m_[j] / (b_[j] + eps);
  }
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
