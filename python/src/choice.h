#pragma once
// A keyword argument chosen from a table (op="sum", precision="fp16"): the value for `text`, or
// InvalidArgument naming the argument, the bad text and every accepted one.
#include <fmt/format.h>

#include <map>
#include <string>

#include "core/util/error.h"

namespace compopt::python {

template <typename T>
T choice(const std::map<std::string, T>& table, const std::string& text, const char* what) {
  const auto found = table.find(text);
  if (found != table.end()) return found->second;
  std::string expected;
  for (const auto& entry : table) expected += (expected.empty() ? "'" : ", '") + entry.first + "'";
  throw InvalidArgument(fmt::format("{}: '{}', expected one of {}", what, text, expected));
}

}  // namespace compopt::python
