#include "core/optim/zero_variance_note.h"

#include <fmt/format.h>

#include <algorithm>

namespace compopt {

std::optional<std::string> zero_variance_note(const std::string& optimizer, int64_t step,
                                              std::span<const float> variance, double lr,
                                              double eps) {
  const auto zeros = std::count(variance.begin(), variance.end(), 0.0f);
  if (zeros == 0) return std::nullopt;
  const double share = 100.0 * static_cast<double>(zeros) / static_cast<double>(variance.size());
  return fmt::format(
      "{}: the variance frozen at step {} is exactly 0 at {} of {} elements ({:.3g}%); their "
      "gradient was 0 at every warmup step. Compressed, their momentum takes its chunk's scale, "
      "so they step by lr x |m| / eps = {:.3g} x |m| per step (lr {:.3g}, eps {:.3g}) where an "
      "Adam step is about lr. If the run then stops with a non-finite value, raise eps, freeze "
      "later, or leave such parameters out.",
      optimizer, step, zeros, variance.size(), share, lr / eps, lr, eps);
}

}  // namespace compopt
