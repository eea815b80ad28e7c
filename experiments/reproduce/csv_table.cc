#include "experiments/reproduce/csv_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace compopt::cli::reproduce {
namespace {

// Plain CSV as compopt writes it: no quoting, no embedded commas.
std::vector<std::string> split_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

CsvTable CsvTable::parse(const std::string& text, const std::string& source) {
  CsvTable t;
  t.source_ = source;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(fmt::format("{}: empty CSV", source));
  t.header_ = split_line(line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> row = split_line(line);
    if (row.size() != t.header_.size()) {
      throw std::runtime_error(fmt::format("{}: row {} has {} cells, the header {}", source,
                                           t.cells_.size() + 1, row.size(), t.header_.size()));
    }
    t.cells_.push_back(std::move(row));
  }
  return t;
}

size_t CsvTable::column_index(const std::string& column) const {
  const auto it = std::find(header_.begin(), header_.end(), column);
  if (it == header_.end())
    throw std::runtime_error(fmt::format("{}: no column '{}'", source_, column));
  return static_cast<size_t>(it - header_.begin());
}

const std::string& CsvTable::text(size_t row, const std::string& column) const {
  return cells_.at(row).at(column_index(column));
}

std::optional<double> CsvTable::maybe(size_t row, const std::string& column) const {
  const std::string& cell = text(row, column);
  if (cell.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size()) {
    throw std::runtime_error(fmt::format("{}: row {} column '{}': '{}' is not a number", source_,
                                         row + 1, column, cell));
  }
  return v;
}

double CsvTable::number(size_t row, const std::string& column) const {
  const auto v = maybe(row, column);
  if (!v) {
    throw std::runtime_error(
        fmt::format("{}: row {} column '{}' is empty", source_, row + 1, column));
  }
  return *v;
}

}  // namespace compopt::cli::reproduce
