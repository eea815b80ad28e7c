#pragma once
// Text helpers shared by the readers of configs, overrides and flags.

#include <string>
#include <string_view>

namespace compopt {

// `s` without its leading and trailing spaces and tabs.
inline std::string trim_blanks(std::string_view s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

}  // namespace compopt
