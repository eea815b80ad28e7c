#include "net_models/nccl_version.h"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace compopt::net {

namespace {

// The dot-separated parts of `text` as integers; empty when one is not a plain integer.
std::vector<int> integer_parts(std::string_view text) {
  std::vector<int> parts;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find('.', begin), text.size());
    int value = -1;
    const char* first = text.data() + begin;
    const char* last = text.data() + end;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (first == last || ec != std::errc{} || ptr != last || value < 0) return {};
    parts.push_back(value);
    begin = end + 1;
  }
  return parts;
}

}  // namespace

NcclVersion parse_nccl_version(std::string_view text) {
  const std::vector<int> parts = integer_parts(text);
  if (parts.size() < 2 || parts.size() > 3 || parts[0] != 2) {
    throw InvalidArgument(fmt::format(
        "nccl_version '{}': expected an NCCL 2 version, 2.MINOR or 2.MINOR.PATCH (e.g. 2.4.8)",
        text));
  }
  return {parts[0], parts[1], parts.size() == 3 ? parts[2] : 0};
}

}  // namespace compopt::net
