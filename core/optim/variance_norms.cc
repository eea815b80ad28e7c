#include "core/optim/variance_norms.h"

namespace compopt {

L1L2Norms VarianceNorms::of(std::span<const float> v) const {
  if (!cached_) cached_ = l1_and_l2_norms(v);
  return *cached_;
}

void VarianceNorms::report(std::span<const float> v, OptimizerMetrics& out) const {
  const L1L2Norms norms = of(v);
  out.variance_norm = norms.l2;
  out.variance_l1 = norms.l1;
}

}  // namespace compopt
