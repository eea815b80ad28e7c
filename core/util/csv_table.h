#pragma once
// CsvTable: a small CSV file parsed into strings. Lines starting with '#' and blank lines
// are skipped; the first other line is the header; fields are separated by ',' and may be
// wrapped in double quotes (a quoted field may hold ',' and "" for one quote). Every row
// must have as many fields as the header. Errors throw InvalidArgument naming the source
// and the line. The one reader of CSV text: the published tables of data/published/
// and the CSVs compopt's own runs wrote (an empty cell there is an absent value).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace compopt {

class CsvTable {
 public:
  // `source` names the text in error messages (a file path).
  CsvTable(std::string_view text, std::string_view source);

  size_t rows() const { return rows_.size(); }
  const std::vector<std::string>& header() const { return header_; }
  // Index of the header field `name`; throws naming the source and the known columns.
  size_t column(std::string_view name) const;

  const std::string& text(size_t row, std::string_view name) const;
  // The field parsed as a whole number / a finite decimal; throws naming the field.
  int integer(size_t row, std::string_view name) const;
  double number(size_t row, std::string_view name) const;
  // The field as a finite decimal, or nullopt when it is empty.
  std::optional<double> maybe(size_t row, std::string_view name) const;

 private:
  std::string source_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> line_of_row_;  // 1-based line in the text, for messages
};

}  // namespace compopt
