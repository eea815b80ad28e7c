#include "core/optim/variance_norms.h"

namespace compopt {

L1L2Norms VarianceNorms::of(std::span<const float> v) const {
  if (!cached_) cached_ = l1_and_l2_norms(v);
  return *cached_;
}

}  // namespace compopt
