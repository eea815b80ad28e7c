#pragma once
// Integer settings read from the environment (RANK, COMPOPT_*). A bad value is an
// InvalidArgument naming the variable, its text and the accepted range.

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "core/util/error.h"

namespace compopt {

// The value of `name`, or nullptr when it is unset or empty.
inline const char* env_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

// `text`, the value of variable `name`, as a base-10 integer in lo..hi.
inline long parse_env_integer(const char* name, const char* text, long lo, long hi) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < lo || value > hi) {
    throw InvalidArgument(
        fmt::format("{}='{}': expected an integer in {}..{}", name, text, lo, hi));
  }
  return value;
}

}  // namespace compopt
