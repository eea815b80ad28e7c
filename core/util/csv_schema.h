#pragma once
// CsvSchema: the one declaration of a CSV file kind (docs/reproduction.md lists them):
// its column names and how each column prints its value. header() and row() are the
// only way compopt writes CSV text, so a header and its rows cannot drift apart; row()
// throws std::logic_error when it gets another number of cells than there are columns.
// Units belong in column names: _s, _ms, _bytes, _GBps (gigabytes/s), _gbit_s (Gbit/s).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace compopt {

struct CsvColumn {
  std::string name;
  std::string format = "{}";  // a fmt replacement field for the value, e.g. "{:.6e}"
};

// One value of a row: text, an integer, a number, or empty (an absent optional).
class CsvCell {
 public:
  CsvCell() = default;
  template <typename T>
  requires std::is_integral_v<T> &&(!std::is_same_v<T, bool>)
      CsvCell(T v) {  // NOLINT(google-explicit-constructor): cells are written as literals
    if constexpr (std::is_signed_v<T>) {
      value_ = static_cast<int64_t>(v);
    } else {
      value_ = static_cast<uint64_t>(v);
    }
  }
  CsvCell(bool v) : value_(static_cast<int64_t>(v ? 1 : 0)) {}  // NOLINT: as 0 or 1
  CsvCell(double v) : value_(v) {}                              // NOLINT
  CsvCell(std::string v) : value_(std::move(v)) {}              // NOLINT
  CsvCell(std::string_view v) : value_(std::string(v)) {}       // NOLINT
  CsvCell(const char* v) : value_(std::string(v)) {}            // NOLINT
  template <typename T>
  CsvCell(const std::optional<T>& v) {  // NOLINT: empty when absent
    if (v) *this = CsvCell(*v);
  }

  // The value through `format`; an empty cell prints nothing.
  std::string print(const std::string& format) const;

 private:
  std::variant<std::monostate, int64_t, uint64_t, double, std::string> value_;
};

class CsvSchema {
 public:
  // `kind` names the file in errors, e.g. "comm_bench.csv".
  CsvSchema(std::string kind, std::vector<CsvColumn> columns);

  const std::string& kind() const { return kind_; }
  const std::vector<CsvColumn>& columns() const { return columns_; }
  // The names joined by commas, with a newline.
  std::string header() const;
  // One line: each cell printed by its column's format.
  std::string row(const std::vector<CsvCell>& cells) const;

 private:
  std::string kind_;
  std::vector<CsvColumn> columns_;
};

// A CSV file being built: the schema's header, then rows.
class CsvWriter {
 public:
  explicit CsvWriter(const CsvSchema& schema) : schema_(schema), text_(schema.header()) {}
  void add(const std::vector<CsvCell>& cells) { text_ += schema_.row(cells); }
  const std::string& text() const { return text_; }

 private:
  const CsvSchema& schema_;
  std::string text_;
};

}  // namespace compopt
