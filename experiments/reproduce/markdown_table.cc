#include "experiments/reproduce/markdown_table.h"

#include <fmt/format.h>

namespace compopt::cli::reproduce {

std::string MarkdownTable::str() const {
  std::string out = "|";
  for (const auto& h : header_) out += " " + h + " |";
  out += "\n|";
  for (size_t i = 0; i < header_.size(); ++i) out += i == 0 ? "---|" : "---:|";
  out += "\n";
  for (const auto& row : rows_) {
    out += "|";
    for (const auto& cell : row) out += " " + cell + " |";
    out += "\n";
  }
  return out;
}

std::string fixed(std::optional<double> value, int digits) {
  return value ? fmt::format("{:.{}f}", *value, digits) : "—";
}

std::string relative_error(std::optional<double> ours, std::optional<double> published) {
  if (!ours || !published || *published == 0) return "—";
  return fmt::format("{:+.1f}%", 100.0 * (*ours - *published) / *published);
}

}  // namespace compopt::cli::reproduce
