#include "experiments/sweep_totals.h"

#include <fmt/format.h>

#include <set>

#include "core/util/csv_table.h"

namespace compopt::cli {
namespace {

// One line per scenario (not per stage row) that does not fit.
std::vector<std::string> unfit_scenarios(const CsvTable& table) {
  std::vector<std::string> lines;
  std::set<std::string> seen;
  for (size_t row = 0; row < table.rows(); ++row) {
    if (table.integer(row, "fits_in_memory") != 0) continue;
    const std::string line = fmt::format(
        "  {} {} on {} x {} ({} GPUs), batch {}: {} GB per GPU (weights {}, gradients {}, "
        "optimizer {}, activations {}) > {} GB",
        table.text(row, "workload"), table.text(row, "optimizer"), table.text(row, "cluster"),
        table.text(row, "gpu"), table.text(row, "gpus"), table.text(row, "batch_per_gpu"),
        table.text(row, "memory_total_gb"), table.text(row, "memory_weights_gb"),
        table.text(row, "memory_gradients_gb"), table.text(row, "memory_optimizer_gb"),
        table.text(row, "memory_activations_gb"), table.text(row, "gpu_memory_gb"));
    if (seen.insert(line).second) lines.push_back(line);
  }
  return lines;
}

}  // namespace

std::string finish_sweep_csv(const std::string& csv, const sim::TrainingSpec& training) {
  const std::vector<std::string> unfit = unfit_scenarios(CsvTable(csv, "sweep.csv"));
  if (!unfit.empty()) {
    fmt::print("warning: {} scenario(s) do not fit in the GPU's memory:\n", unfit.size());
    for (const std::string& line : unfit) fmt::print("{}\n", line);
  }
  return sim::with_end_to_end_speedup(csv, training.baseline);
}

}  // namespace compopt::cli
