#include "core/compress/error_feedback.h"

#include <string>

#include "core/util/error.h"

namespace compopt {
namespace {

void check_size(const char* what, const char* arg, size_t got, size_t expected) {
  if (got != expected) {
    throw InvalidArgument(std::string("ErrorFeedback::") + what + ": " + arg + " has " +
                          std::to_string(got) + " elements, expected " + std::to_string(expected));
  }
}

// out[i] = a[i] + sign * b[i] for i < n, in blocks with a fixed trip count (vectorized at -O2).
// out may alias a or b exactly (element i reads only index i before writing it).
template <int kSign>
void add_scaled(const float* a, const float* b, float* out, size_t n) {
  constexpr size_t kBlock = 64;
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    float tmp[kBlock];
    for (size_t j = 0; j < kBlock; ++j)
      tmp[j] = kSign > 0 ? a[i + j] + b[i + j] : a[i + j] - b[i + j];
    for (size_t j = 0; j < kBlock; ++j) out[i + j] = tmp[j];
  }
  for (; i < n; ++i) out[i] = kSign > 0 ? a[i] + b[i] : a[i] - b[i];
}

}  // namespace

void ErrorFeedback::compensate(std::span<const float> x, std::span<float> y) const {
  check_size("compensate", "x", x.size(), error_.size());
  check_size("compensate", "y", y.size(), error_.size());
  add_scaled<+1>(x.data(), error_.data(), y.data(), y.size());
}

void ErrorFeedback::update(std::span<const float> y, std::span<const float> decoded) {
  check_size("update", "y", y.size(), error_.size());
  check_size("update", "decoded", decoded.size(), error_.size());
  add_scaled<-1>(y.data(), decoded.data(), error_.data(), error_.size());
}

}  // namespace compopt
