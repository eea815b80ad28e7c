#include "experiments/scenario/option_ranges.h"

#include <fmt/format.h>

#include <cstdlib>

#include "core/util/error.h"
#include "core/util/text.h"

namespace compopt::cli {

CLI::Validator in_range(const std::string& flag, double lo, double hi, const std::string& why) {
  auto check = [flag, lo, hi, why](std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) return std::string();
    if (!(value >= lo && value <= hi)) {
      throw InvalidArgument(fmt::format("{} {}: expected {}..{} ({})", flag, text, lo, hi, why));
    }
    return std::string();
  };
  return CLI::Validator(check, fmt::format("{}..{}", lo, hi));
}

CLI::Validator non_negative(const std::string& flag) {
  auto check = [flag](std::string& text) {
    if (trim_blanks(text).starts_with('-'))
      throw InvalidArgument(fmt::format("{} {}: expected an integer >= 0", flag, text));
    return std::string();
  };
  return CLI::Validator(check, ">= 0");
}

}  // namespace compopt::cli
