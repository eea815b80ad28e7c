#include "core/util/csv_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>

#include "core/util/error.h"

namespace compopt {
namespace {

// Splits one line into fields; throws on an unterminated quote.
std::vector<std::string> split_fields(std::string_view line, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw InvalidArgument(fmt::format("{}: unterminated quoted field", where));
  return fields;
}

}  // namespace

CsvTable::CsvTable(std::string_view text, std::string_view source) : source_(source) {
  int line_number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = fmt::format("{} line {}", source_, line_number);
    std::vector<std::string> fields = split_fields(line, where);
    if (header_.empty()) {
      header_ = std::move(fields);
      continue;
    }
    if (fields.size() != header_.size())
      throw InvalidArgument(fmt::format("{}: {} fields, expected {} as in the header", where,
                                        fields.size(), header_.size()));
    rows_.push_back(std::move(fields));
    line_of_row_.push_back(line_number);
  }
  if (header_.empty()) throw InvalidArgument(fmt::format("{}: no header line", source_));
}

size_t CsvTable::column(std::string_view name) const {
  for (size_t c = 0; c < header_.size(); ++c)
    if (header_[c] == name) return c;
  throw InvalidArgument(fmt::format("{}: no column '{}', expected one of {}", source_, name,
                                    fmt::join(header_, ", ")));
}

const std::string& CsvTable::text(size_t row, std::string_view name) const {
  if (row >= rows_.size())
    throw InvalidArgument(fmt::format("{}: row {} of {}", source_, row, rows_.size()));
  return rows_[row][column(name)];
}

int CsvTable::integer(size_t row, std::string_view name) const {
  const std::string& field = text(row, name);
  int value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size())
    throw InvalidArgument(fmt::format("{} line {}: {} = '{}', expected a whole number", source_,
                                      line_of_row_[row], name, field));
  return value;
}

double CsvTable::number(size_t row, std::string_view name) const {
  const std::string& field = text(row, name);
  double value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size() || !std::isfinite(value))
    throw InvalidArgument(fmt::format("{} line {}: {} = '{}', expected a finite number", source_,
                                      line_of_row_[row], name, field));
  return value;
}

std::optional<double> CsvTable::maybe(size_t row, std::string_view name) const {
  if (text(row, name).empty()) return std::nullopt;
  return number(row, name);
}

}  // namespace compopt
