#pragma once
// Central finite-difference check of a TaskWorker's gradient on float parameters.
// The loss is accumulated in double, so with step h the FD error is about
// (double rounding of the loss) / h plus O(h^2) curvature terms.

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "core/tasks/task.h"

namespace compopt::testing {

// Largest |fd - grad| / max(1, |fd|) over `coords` (all when empty).
inline double max_fd_error(TaskWorker& w, std::vector<float> params, std::span<const size_t> batch,
                           float h, std::vector<size_t> coords = {}) {
  std::vector<float> grad(params.size()), scratch(params.size());
  w.loss_and_grad(params, batch, grad);
  if (coords.empty()) {
    for (size_t j = 0; j < params.size(); ++j) coords.push_back(j);
  }
  double worst = 0;
  for (const size_t j : coords) {
    const float keep = params[j];
    params[j] = keep + h;
    const double up_x = params[j];
    const double up = w.loss_and_grad(params, batch, scratch);
    params[j] = keep - h;
    const double down_x = params[j];
    const double down = w.loss_and_grad(params, batch, scratch);
    params[j] = keep;
    const double fd = (up - down) / (up_x - down_x);
    worst = std::max(worst, std::abs(fd - grad[j]) / std::max(1.0, std::abs(fd)));
  }
  return worst;
}

}  // namespace compopt::testing
