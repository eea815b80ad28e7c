#include "core/optim/momentum.h"

#include <cstddef>

namespace compopt {

void momentum_update(const MomentumOptions& o, std::span<float> m, std::span<const float> g,
                     std::span<float> dir) {
  const float b = o.beta;
  for (size_t j = 0; j < m.size(); ++j) {
    const float gj = g[j];
    if (o.form == MomentumForm::kPaper) {
      m[j] = b * m[j] + (1.0f - b) * gj;
      dir[j] = o.nesterov ? b * m[j] + (1.0f - b) * gj : m[j];
    } else {
      m[j] = b * m[j] + gj;
      dir[j] = o.nesterov ? gj + b * m[j] : m[j];
    }
  }
}

}  // namespace compopt
