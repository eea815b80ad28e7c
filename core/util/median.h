#pragma once
// The median of absolute values: how the calibration, cross-validation and public checks
// summarise their errors (docs/calibration.md, docs/validation.md).

#include <algorithm>
#include <cmath>
#include <vector>

namespace compopt {

// The median of |values| (the mean of the two middle ones for an even count); 0 when empty.
inline double median_abs(std::vector<double> values) {
  if (values.empty()) return 0;
  for (double& v : values) v = std::abs(v);
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace compopt
