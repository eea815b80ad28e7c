#pragma once
// Automatic warmup length of 1-bit Adam ([1BA] §7.1; docs/algorithms.md): T_w is the first
// step t past the LR warmup (t > lr_warmup_steps) with
//   ||v_t||_1 / ||v_{t-Delta}||_1 >= threshold,   Delta = ceil(1/(1-beta2)),
// where v_{t-Delta} was observed (t - Delta >= 1) and is non-zero. Callers feed
// the norm of the rank-averaged variance, so every rank decides the same step.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/optim/optimizer_state.h"

namespace compopt {

class VarianceFreezeDetector {
 public:
  // Requires beta2 in [0, 1), threshold in (0, 1], lr_warmup_steps >= 0.
  VarianceFreezeDetector(double beta2, double threshold, int64_t lr_warmup_steps);

  // Delta = ceil(1/(1-beta2)), where 1/(1-beta2) within 1e-9 relative of an
  // integer counts as that integer (0.9 -> 10, 0.999 -> 1000).
  static int64_t delta_for(double beta2);
  int64_t delta() const { return delta_; }
  // The first step observe() can return true at: past the LR warmup and Delta steps in,
  // max(lr_warmup_steps, Delta) + 1 (1001 at beta2 = 0.999 without LR warmup).
  int64_t earliest_step() const { return std::max(lr_warmup_steps_, delta_) + 1; }

  // Records ||v_t||_1 after step t (t = 1, 2, ... consecutively); returns true
  // when t is the freeze step.
  bool observe(int64_t t, double v_l1);
  // ||v_t||_1/||v_{t-Delta}||_1 of the latest observation, when defined.
  std::optional<double> last_ratio() const { return last_ratio_; }

  void save(OptimizerState& state, const std::string& prefix) const;
  void load(const OptimizerState& state, const std::string& prefix);

 private:
  double threshold_;
  int64_t lr_warmup_steps_;
  int64_t delta_;
  std::vector<double> ring_;  // ring_[s % (Delta+1)] = ||v_s||_1
  int64_t last_t_ = 0;
  std::optional<double> last_ratio_;
};

}  // namespace compopt
