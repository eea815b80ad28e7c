// Convergence of real PyTorch models per optimizer pair ([1BA] Fig. 2, [1BL] Fig. 2, [BIR]
// Fig. 2 in kind): each compressed optimizer against its uncompressed baseline (Adam vs 1-bit
// Adam, LAMB vs 1-bit LAMB, momentum SGD vs Birder) on the small ResNet (Fashion-MNIST) and
// the byte-level transformer LM (python3.11-doc text) of experiments/torch/, 4 ranks under
// `compopt launch -n 4`. Quick: the transformer with Adam against the torch_variance study's
// 1-bit Adam run (automatic freeze); full: both models, all three pairs, T_w = 15%.

#include <fmt/format.h>

#include "core/util/csv_schema.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/study.h"
#include "experiments/reproduce/torch_runs.h"

namespace compopt::cli::reproduce {
namespace {

const CsvSchema& curves_schema() {
  static const CsvSchema schema("curves.csv", {{"model"},
                                               {"optimizer"},
                                               {"step"},
                                               {"samples"},
                                               {"stage"},
                                               {"train_loss"},
                                               {"test_loss"},
                                               {"test_accuracy"},
                                               {"time_s"}});
  return schema;
}

const CsvSchema& summary_schema() {
  static const CsvSchema schema("summary.csv", {{"model"},
                                                {"optimizer"},
                                                {"steps"},
                                                {"final_test_loss", "{:.6f}"},
                                                {"final_test_accuracy", "{:.6f}"},
                                                {"wall_s", "{:.3f}"}});
  return schema;
}

std::vector<TorchRunSpec> full_specs() {
  const std::vector<std::string> optimizers{"adam",        "onebit-adam",  "lamb",
                                            "onebit-lamb", "momentum-sgd", "birder"};
  std::vector<TorchRunSpec> specs;
  for (const auto& [model, steps] : {std::pair{"resnet", 300}, std::pair{"transformer", 300}}) {
    for (const std::string& optimizer : optimizers) {
      specs.push_back({fmt::format("{}-{}", model, optimizer),
                       model,
                       optimizer,
                       {"--steps", std::to_string(steps), "--eval-every", "100", "--eval-examples",
                        "2000", "--freeze-step", "15%"}});
    }
  }
  return specs;
}

std::vector<TorchRunSpec> specs_at(const StudyContext& context) {
  if (context.full) return full_specs();
  const int steps = torch_variance_steps(context);
  std::vector<std::string> extra{"--steps",         std::to_string(steps),
                                 "--eval-every",    std::to_string(steps),
                                 "--eval-examples", "256"};
  const std::vector<std::string> schedule = torch_variance_schedule(context);
  extra.insert(extra.end(), schedule.begin(), schedule.end());
  return {{"transformer-adam", "transformer", "adam", extra}, torch_variance_spec(context)};
}

}  // namespace

std::string run_torch_convergence_study(const StudyContext& context) {
  if (const std::string reason = torch_unavailable_reason(); !reason.empty())
    return torch_skipped_section(reason);
  CsvWriter curves(curves_schema());
  CsvWriter summary(summary_schema());
  MarkdownTable table({"model", "optimizer", "steps", "test loss", "test accuracy %", "wall s"});
  for (const TorchRun& run : torch_runs(context, specs_at(context))) {
    const CsvTable& m = run.metrics;
    std::optional<double> loss, accuracy;
    for (size_t r = 0; r < m.rows(); ++r) {
      curves.add({run.spec.model, run.spec.label, m.text(r, "step"), m.text(r, "samples"),
                  m.text(r, "stage"), m.text(r, "train_loss"), m.text(r, "test_loss"),
                  m.text(r, "test_accuracy"), m.text(r, "time_s")});
      if (auto l = m.maybe(r, "test_loss")) loss = l;
      if (auto a = m.maybe(r, "test_accuracy")) accuracy = a;
    }
    const size_t last = m.rows() - 1;
    summary.add({run.spec.model, run.spec.label, m.integer(last, "step"), loss, accuracy,
                 m.number(last, "time_s")});
    table.add({run.spec.model, run.spec.label, m.text(last, "step"), fixed(loss, 4),
               fixed(accuracy ? std::optional(100 * *accuracy) : std::nullopt, 2),
               fixed(m.number(last, "time_s"), 0)});
  }
  context.write_file("curves.csv", curves.text());
  context.write_file("summary.csv", summary.text());
  return fmt::format(
      "Real PyTorch models trained with compopt's C++ optimizers on 4 ranks (`compopt launch -n "
      "4`, TCP): the small ResNet on Fashion-MNIST (batch 32 per rank, test accuracy on the "
      "first 2,000 test images) and the byte-level transformer LM on the python3.11-doc text "
      "(16 windows of 64 bytes per rank, next-byte accuracy on validation windows). {} "
      "Wall time is this machine's and varies with its load. The papers train other models, so "
      "there is no published number beside these.\n\n{}",
      context.full
          ? "Three optimizer pairs per model, 1-bit Adam and 1-bit LAMB with T_w = 15%."
          : "Quick scale: the transformer only, Adam against 1-bit Adam with the "
            "automatic freeze (the torch_variance run), both with its beta2 and LR warmup.",
      table.str());
}

}  // namespace compopt::cli::reproduce
