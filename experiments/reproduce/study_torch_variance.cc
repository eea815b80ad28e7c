// Variance stability on a real transformer ([1BA] §3.3, §7.1, the variance study on a
// PyTorch model instead of the MLP): 1-bit Adam with the automatic freeze (freeze_step =
// auto) trains the byte-level transformer LM of experiments/torch/ on 4 ranks. Before the
// freeze it is Adam; as in the variance study the LR warms up linearly over 2 Delta steps
// (the detector waits for that warmup). Each step records the fused ||v||_2 and the
// detector's ratio ||v_t||_1 / ||v_{t-Delta}||_1; the first compressed step shows where v
// was frozen.
// The CSVs have the variance study's columns, so the same figure draws them.

#include <fmt/format.h>

#include <optional>

#include "core/optim/optimizer.h"
#include "core/optim/variance_freeze_detector.h"
#include "core/util/csv_schema.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/study.h"
#include "experiments/reproduce/torch_runs.h"
#include "experiments/reproduce/variance_files.h"

namespace compopt::cli::reproduce {

std::string run_torch_variance_study(const StudyContext& context) {
  if (const std::string reason = torch_unavailable_reason(); !reason.empty())
    return torch_skipped_section(reason);
  const double beta2 = torch_variance_beta2(context);
  const CsvTable m = torch_runs(context, {torch_variance_spec(context)}).front().metrics;
  CsvWriter variance(variance_schema());
  std::optional<int64_t> freeze;
  for (size_t r = 0; r < m.rows(); ++r) {
    if (!freeze && m.text(r, "stage") == stage_name(Stage::kCompression))
      freeze = m.integer(r, "step") - 1;
    // The detector stops observing at the freeze: later rows repeat its last ratio.
    const std::optional<double> ratio = freeze ? std::nullopt : m.maybe(r, "var_ratio_l1");
    variance.add({beta2, m.integer(r, "step"), m.maybe(r, "lr"), m.maybe(r, "train_loss"),
                  m.maybe(r, "var_norm_l2"), ratio});
  }
  const int64_t delta = VarianceFreezeDetector::delta_for(beta2);
  CsvWriter freeze_csv(freeze_schema());
  freeze_csv.add({beta2, delta, kFreezeThreshold, freeze});
  context.write_file("variance.csv", variance.text());
  context.write_file("freeze.csv", freeze_csv.text());
  MarkdownTable table({"beta2", "Delta", "steps", "freeze step (auto)", "final train loss"});
  table.add({fmt::format("{}", beta2), std::to_string(delta),
             std::to_string(torch_variance_steps(context)),
             freeze ? std::to_string(*freeze) : "never",
             fixed(m.maybe(m.rows() - 1, "train_loss"), 4)});
  return fmt::format(
      "1-bit Adam (lr 1e-3 after a linear warmup over 2 Delta steps, eps 1e-6, freeze_step = "
      "auto, threshold {}) trains the byte-level "
      "transformer LM of experiments/torch/ (2 pre-LN blocks, width 64, context 64) on the "
      "python3.11-doc text, 4 ranks x 16 windows, launched with `compopt launch -n 4`. Until "
      "the detector fires it is Adam: ||v||_2 and the ratio ||v_t||_1 / ||v_t-Delta||_1 are "
      "Adam's; v stays frozen afterwards. [1BA] reports this stability for BERT; no published "
      "number exists for this model.\n\n{}",
      kFreezeThreshold, table.str());
}

}  // namespace compopt::cli::reproduce
