#include "core/compress/error_feedback.h"

#include <string>

#include "core/util/error.h"

namespace compopt {
namespace {

void check_size(const char* what, const char* arg, size_t got, size_t expected) {
  if (got != expected) {
    throw InvalidArgument(std::string("ErrorFeedback::") + what + ": " + arg + " has " +
                          std::to_string(got) + " elements, expected " +
                          std::to_string(expected));
  }
}

}  // namespace

void ErrorFeedback::compensate(std::span<const float> x, std::span<float> y) const {
  check_size("compensate", "x", x.size(), error_.size());
  check_size("compensate", "y", y.size(), error_.size());
  const float* e = error_.data();
  for (size_t i = 0; i < y.size(); ++i) y[i] = x[i] + e[i];
}

void ErrorFeedback::update(std::span<const float> y, std::span<const float> decoded) {
  check_size("update", "y", y.size(), error_.size());
  check_size("update", "decoded", decoded.size(), error_.size());
  float* e = error_.data();
  for (size_t i = 0; i < y.size(); ++i) e[i] = y[i] - decoded[i];
}

}  // namespace compopt
