#include "experiments/scenario/sweep_totals.h"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "core/util/csv_table.h"
#include "experiments/scenario/speedup_baseline.h"
#include "sim/scenario.h"

namespace compopt::cli {
namespace {

struct Unfit {
  size_t scenarios = 0;            // distinct scenarios (not stage rows) that do not fit
  std::vector<std::string> lines;  // one per distinct memory case (the network plays no part)
};

Unfit unfit_scenarios(const CsvTable& table) {
  Unfit out;
  std::set<std::string> seen, scenarios;
  for (size_t row = 0; row < table.rows(); ++row) {
    if (table.integer(row, "fits_in_memory") != 0) continue;
    std::string key = table.text(row, "optimizer");
    for (const std::string& column : sim::scenario_key_columns())
      key += ',' + table.text(row, column);
    scenarios.insert(key);
    // With [training] phases the memory is the phase's that needs the most.
    const std::string& phase = table.text(row, "memory_phase");
    const std::string batch =
        phase.empty() ? "batch " + table.text(row, "batch_per_gpu") : "in phase " + phase;
    const std::string line = fmt::format(
        "  {} {} on {} x {} ({} GPUs), {}: {} GB per GPU (weights {}, gradients {}, "
        "optimizer {}, activations {}) > {} GB",
        table.text(row, "workload"), table.text(row, "optimizer"), table.text(row, "cluster"),
        table.text(row, "gpu"), table.text(row, "gpus"), batch, table.text(row, "memory_total_gb"),
        table.text(row, "memory_weights_gb"), table.text(row, "memory_gradients_gb"),
        table.text(row, "memory_optimizer_gb"), table.text(row, "memory_activations_gb"),
        table.text(row, "gpu_memory_gb"));
    if (seen.insert(line).second) out.lines.push_back(line);
  }
  out.scenarios = scenarios.size();
  return out;
}

}  // namespace

FinishedSweep finish_sweep(const std::string& csv, const sim::TrainingSpec& training) {
  const Unfit unfit = unfit_scenarios(CsvTable(csv, "sweep.csv"));
  std::string warning;
  if (unfit.scenarios > 0) {
    warning = fmt::format(
        "warning: {} scenario(s) do not fit in the GPU's memory ({} distinct "
        "case(s)):\n",
        unfit.scenarios, unfit.lines.size());
    for (const std::string& line : unfit.lines) warning += line + "\n";
  }
  return {with_speedup_columns(csv, training.baseline), warning};
}

std::string finish_sweep_csv(const std::string& csv, const sim::TrainingSpec& training) {
  FinishedSweep finished = finish_sweep(csv, training);
  fmt::print("{}", finished.warning);
  return std::move(finished.csv);
}

}  // namespace compopt::cli
