#pragma once
// Momentum rules shared by momentum SGD, EF momentum SGD, DoubleSqueeze and
// local momentum SGD (docs/algorithms.md):
//   paper form:   m = beta*m + (1-beta)*g;  direction m   (Nesterov: beta*m + (1-beta)*g)
//   PyTorch form: m = mu*m + g;             direction m   (Nesterov: g + mu*m)

#include <span>

namespace compopt {

enum class MomentumForm { kPaper, kPyTorch };

struct MomentumOptions {
  float beta = 0.9f;
  MomentumForm form = MomentumForm::kPaper;
  bool nesterov = false;
};

// Updates m with g and writes the step direction into dir (may alias g).
void momentum_update(const MomentumOptions& options, std::span<float> m, std::span<const float> g,
                     std::span<float> dir);
// momentum_update, then x -= lr * (dir + wd * x), in one pass without storing dir.
void momentum_step(const MomentumOptions& options, std::span<float> x, std::span<float> m,
                   std::span<const float> g, float lr, float wd);

}  // namespace compopt
