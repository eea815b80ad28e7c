#pragma once
// A CSV file read back into memory (header row, then rows of text cells), for
// studies that aggregate the CSVs other runs wrote. Numeric access by column
// name; an empty cell is "absent". Throws std::runtime_error naming the file,
// the column or the row when something does not fit.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace compopt::cli::reproduce {

class CsvTable {
 public:
  static CsvTable parse(const std::string& text, const std::string& source);

  size_t rows() const { return cells_.size(); }
  const std::string& text(size_t row, const std::string& column) const;
  std::optional<double> maybe(size_t row, const std::string& column) const;
  double number(size_t row, const std::string& column) const;  // throws when absent

 private:
  size_t column_index(const std::string& column) const;
  std::string source_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> cells_;
};

}  // namespace compopt::cli::reproduce
