#pragma once
// A Markdown table for report.md, and the number formats the report uses.

#include <optional>
#include <string>
#include <vector>

namespace compopt::cli::reproduce {

class MarkdownTable {
 public:
  explicit MarkdownTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// "12.3" with `digits` after the point; "—" when absent.
std::string fixed(std::optional<double> value, int digits = 1);
// Relative error of ours against published, "+4.2%"; "—" when either is absent.
std::string relative_error(std::optional<double> ours, std::optional<double> published);

}  // namespace compopt::cli::reproduce
