#include "net_models/attention_kind.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/util/error.h"

namespace compopt::net {
namespace {

constexpr std::array<std::pair<AttentionKind, const char*>, 2> kNames = {
    {{AttentionKind::kUnfused, "unfused"}, {AttentionKind::kFlash, "flash"}}};

}  // namespace

const char* attention_kind_name(AttentionKind kind) {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "unfused";
}

AttentionKind parse_attention_kind(std::string_view name, std::string_view what) {
  for (const auto& [kind, known] : kNames)
    if (name == known) return kind;
  throw InvalidArgument(fmt::format("{} = '{}', expected unfused or flash", what, name));
}

}  // namespace compopt::net
