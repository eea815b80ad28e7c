// Communication volume ([1BA] §7.1, [1BL] §6; docs/algorithms.md): the end-to-end
// reduction of bytes sent per rank against an uncompressed run, measured on the
// Fashion-MNIST runs (real traffic counters of the collectives) beside the
// formula 1/(w + (1-w)/k) with w the run's fraction of uncompressed steps and
// k = 32 (fp32 wire). They must agree up to the compressed messages' scale
// factors and the padding of chunks to whole bytes.

#include <fmt/format.h>

#include <cmath>

#include "core/optim/optimizer.h"
#include "core/util/csv_schema.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/study.h"
#include "experiments/reproduce/training_runs.h"

namespace compopt::cli::reproduce {

std::string run_volume_study(const StudyContext& context) {
  const std::vector<std::string> optimizers = {"adam", "onebit-adam", "naive-onebit-adam",
                                               "onebit-lamb", "birder"};
  const std::vector<TrainingRun> runs = training_runs(context, optimizers, {1});
  const auto total_bytes = [](const TrainingRun& r) {
    return r.metrics.number(r.metrics.rows() - 1, "bytes_sent");
  };
  const double baseline = total_bytes(runs.front());  // adam: fp32 ring allreduce every step
  constexpr double k = 32;
  static const CsvSchema schema("volume.csv", {{"optimizer"},
                                               {"warmup_fraction", "{:.6f}"},
                                               {"k"},
                                               {"formula_reduction", "{:.6f}"},
                                               {"measured_reduction", "{:.6f}"},
                                               {"relative_error", "{:.6f}"}});
  CsvWriter csv(schema);
  MarkdownTable table(
      {"optimizer", "uncompressed steps w", "formula 1/(w+(1-w)/32)", "measured", "error"});
  for (const TrainingRun& run : runs) {
    if (run.optimizer == "adam") continue;
    size_t uncompressed = 0;
    for (size_t r = 0; r < run.metrics.rows(); ++r)
      if (run.metrics.text(r, "stage") != stage_name(Stage::kCompression)) ++uncompressed;
    const double w = static_cast<double>(uncompressed) / static_cast<double>(run.metrics.rows());
    const double formula = 1.0 / (w + (1.0 - w) / k);
    const double measured = baseline / total_bytes(run);
    csv.add({run.optimizer, w, k, formula, measured, (measured - formula) / formula});
    table.add({run.optimizer, fmt::format("{:.3f}", w), fmt::format("{:.3f}x", formula),
               fmt::format("{:.3f}x", measured), relative_error(measured, formula)});
  }
  context.write_file("volume.csv", csv.text());
  return fmt::format(
      "Bytes sent per rank over a whole Fashion-MNIST run (MLP 784-256-256-10, 16 ranks), "
      "relative to Adam's fp32 ring allreduce, against the formula of docs/algorithms.md. "
      "Differences come "
      "from the 4-byte scale every compressed chunk carries and the padding of chunks to whole "
      "bytes.\n\n{}",
      table.str());
}

}  // namespace compopt::cli::reproduce
