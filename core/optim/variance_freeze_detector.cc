#include "core/optim/variance_freeze_detector.h"

#include <cmath>

#include "core/util/error.h"

namespace compopt {

int64_t VarianceFreezeDetector::delta_for(double beta2) {
  const double x = 1.0 / (1.0 - beta2);
  const double nearest = std::round(x);
  if (std::fabs(x - nearest) <= 1e-9 * x) return static_cast<int64_t>(nearest);
  return static_cast<int64_t>(std::ceil(x));
}

VarianceFreezeDetector::VarianceFreezeDetector(double beta2, double threshold,
                                               int64_t lr_warmup_steps)
    : threshold_(threshold), lr_warmup_steps_(lr_warmup_steps) {
  if (!(beta2 >= 0 && beta2 < 1)) {
    throw InvalidArgument("VarianceFreezeDetector: beta2 = " + std::to_string(beta2) +
                          ", expected in [0, 1)");
  }
  if (!(threshold > 0 && threshold <= 1)) {
    throw InvalidArgument("VarianceFreezeDetector: threshold = " + std::to_string(threshold) +
                          ", expected in (0, 1]");
  }
  delta_ = delta_for(beta2);
  ring_.assign(static_cast<size_t>(delta_ + 1), 0.0);
}

bool VarianceFreezeDetector::observe(int64_t t, double v_l1) {
  if (t != last_t_ + 1) {
    throw InvalidArgument("VarianceFreezeDetector: observed step " + std::to_string(t) +
                          " after step " + std::to_string(last_t_) +
                          ", expected consecutive steps");
  }
  last_t_ = t;
  const auto slots = static_cast<int64_t>(ring_.size());
  ring_[static_cast<size_t>(t % slots)] = v_l1;
  last_ratio_.reset();
  if (t - delta_ < 1) return false;
  const double past = ring_[static_cast<size_t>((t - delta_) % slots)];
  if (past == 0.0) return false;
  last_ratio_ = v_l1 / past;
  return t > lr_warmup_steps_ && *last_ratio_ >= threshold_;
}

void VarianceFreezeDetector::save(OptimizerState& state, const std::string& prefix) const {
  state.put_scalars(prefix + ".l1_ring", ring_);
  state.put_scalar(prefix + ".last_t", static_cast<double>(last_t_));
  state.put_scalars(prefix + ".last_ratio",
                    last_ratio_ ? std::vector<double>{*last_ratio_} : std::vector<double>{});
}

void VarianceFreezeDetector::load(const OptimizerState& state, const std::string& prefix) {
  const auto& ring = state.scalar_list(prefix + ".l1_ring");
  if (ring.size() != ring_.size()) {
    throw InvalidArgument("VarianceFreezeDetector: checkpoint history of " +
                          std::to_string(ring.size()) + " steps, expected " +
                          std::to_string(ring_.size()) + " (another beta2?)");
  }
  ring_ = ring;
  last_t_ = static_cast<int64_t>(state.scalar(prefix + ".last_t"));
  const auto& ratio = state.scalar_list(prefix + ".last_ratio");
  last_ratio_ = ratio.empty() ? std::nullopt : std::optional<double>(ratio[0]);
}

}  // namespace compopt
