#include "core/util/csv_schema.h"

#include <fmt/format.h>

namespace compopt {

std::string CsvCell::print(const std::string& format) const {
  return std::visit(
      [&](const auto& v) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
          return "";
        } else {
          return fmt::format(fmt::runtime(format), v);
        }
      },
      value_);
}

CsvSchema::CsvSchema(std::string kind, std::vector<CsvColumn> columns)
    : kind_(std::move(kind)), columns_(std::move(columns)) {}

std::string CsvSchema::header() const {
  std::string line;
  for (const CsvColumn& c : columns_) line += (line.empty() ? "" : ",") + c.name;
  return line + "\n";
}

std::string CsvSchema::row(const std::vector<CsvCell>& cells) const {
  if (cells.size() != columns_.size()) {
    throw std::logic_error(fmt::format("{}: a row of {} cells, the schema has {} columns", kind_,
                                       cells.size(), columns_.size()));
  }
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line += ',';
    line += cells[i].print(columns_[i].format);
  }
  return line + "\n";
}

}  // namespace compopt
