#pragma once
// VarianceNorms: ||v||_1 and ||v||_2 of an optimizer's second moment for metrics(), summed once
// per change of v (l1_and_l2_norms: both chains in one pass, the doubles of l1_norm and
// l2_norm). A second moment that stays put (1-bit Adam's frozen v) is not summed again every
// step, and a step that needs ||v||_1 itself (1-bit Adam's freeze detector) leaves it for
// metrics().

#include <optional>
#include <span>

#include "core/optim/optimizer.h"
#include "core/optim/vector_ops.h"

namespace compopt {

class VarianceNorms {
 public:
  // The norms of v: summed now unless v is unchanged since the last call.
  L1L2Norms of(std::span<const float> v) const;
  // Sets out.variance_norm (||v||_2) and out.variance_l1 (||v||_1).
  void report(std::span<const float> v, OptimizerMetrics& out) const;
  // v changed (a step or a load).
  void invalidate() { cached_.reset(); }

 private:
  mutable std::optional<L1L2Norms> cached_;
};

}  // namespace compopt
