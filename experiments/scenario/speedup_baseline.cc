#include "experiments/scenario/speedup_baseline.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "core/optim/optimizer_registry.h"
#include "core/util/csv_table.h"
#include "sim/scenario.h"

namespace compopt::cli {
namespace {

// The row's scenario group: its values of the key columns.
std::string group_of(const CsvTable& table, size_t row) {
  std::string key;
  for (const std::string& column : sim::scenario_key_columns())
    key += table.text(row, column) + '\x1f';
  return key;
}

}  // namespace

std::string speedup_baseline(const std::string& optimizer, const std::string& training_baseline) {
  if (!training_baseline.empty()) return training_baseline;
  const std::string& declared = optimizer_registry().get(optimizer).baseline;
  return declared.empty() ? optimizer : declared;
}

std::string with_speedup_columns(const std::string& csv, const std::string& training_baseline) {
  const CsvTable table(csv, "sweep.csv");
  // Time to train of each (group, optimizer).
  std::map<std::pair<std::string, std::string>, std::optional<double>> times;
  for (size_t row = 0; row < table.rows(); ++row) {
    times[{group_of(table, row), table.text(row, "optimizer")}] =
        table.maybe(row, "time_to_train_h");
  }
  std::istringstream lines(csv);
  std::string line, out;
  std::getline(lines, line);
  out = line + ",end_to_end_speedup,speedup_baseline\n";
  for (size_t row = 0; std::getline(lines, line); ++row) {
    const std::string baseline = speedup_baseline(table.text(row, "optimizer"), training_baseline);
    const std::optional<double> own = table.maybe(row, "time_to_train_h");
    const auto base = times.find({group_of(table, row), baseline});
    std::string cell;
    if (own && *own > 0 && base != times.end() && base->second)
      cell = fmt::format("{:.4f}", *base->second / *own);
    out += line + "," + cell + "," + baseline + "\n";
  }
  return out;
}

}  // namespace compopt::cli
