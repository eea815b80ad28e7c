// The markdown tables of docs/optimizers.md, generated from the optimizer registry.

#include <fmt/format.h>

#include "core/optim/optimizer_registry.h"

namespace compopt {

std::string optimizer_table_markdown() {
  std::string out = "| name | aliases | default lr | keys: default (accepted) | source |\n";
  out += "|---|---|---|---|---|\n";
  for (const auto& e : optimizer_registry().entries()) {
    std::string aliases, keys;
    for (const auto& a : e.aliases) aliases += (aliases.empty() ? "`" : ", `") + a + "`";
    for (const auto& k : e.keys) keys += (keys.empty() ? "" : ", ") + markdown_key(k);
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", e.name, aliases.empty() ? "—" : aliases,
                       e.default_lr, keys.empty() ? "—" : keys, markdown_escape(e.source));
  }
  return out;
}

std::string optimizer_stage_table_markdown() {
  std::string out =
      "| optimizer | stage | communication | compressor | overlap (auto) | volume (default keys) "
      "|\n|---|---|---|---|---|---|\n";
  for (const auto& e : optimizer_registry().entries()) {
    for (const auto& s : e.stages) {
      const std::string volume = stage_volume_text(s);
      out += fmt::format("| `{}` | `{}` | {} | {} | {} | {} |\n", e.name, s.name,
                         comm_pattern_name(s.pattern),
                         s.compressor.empty() ? "—" : "`" + s.compressor + "`",
                         stage_overlap_name(s.overlap), volume.empty() ? "whole vector" : volume);
    }
  }
  return out;
}

std::string common_key_table_markdown() { return markdown_key_table(common_optimizer_keys()); }

}  // namespace compopt
