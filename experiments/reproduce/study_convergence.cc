// Convergence ([1BA] Fig. 2-3, [1BL] Fig. 2, [BIR] Fig. 2 in spirit): the
// Fashion-MNIST MLP trained with every optimizer of the comparison on 16
// simulated V100 GPUs (4 nodes x 4, ethernet-v100-4), sample-wise and
// time-wise. The time axis is BERT-Large's: each step charges BERT-Large's
// modeled compute and its message sizes on the simulated network
// (training_runs.h), so it is the same on every machine. The runs are shared
// with the LAMB and volume studies.

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "core/util/csv_schema.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/study.h"
#include "experiments/reproduce/training_runs.h"

namespace compopt::cli::reproduce {
namespace {

struct Summary {
  std::optional<double> accuracy, loss;
  double time_s = 0, bytes = 0;
};

Summary summarize(const TrainingRun& run) {
  Summary s;
  for (size_t r = 0; r < run.metrics.rows(); ++r) {
    if (auto a = run.metrics.maybe(r, "test_accuracy")) s.accuracy = a;
    if (auto l = run.metrics.maybe(r, "test_loss")) s.loss = l;
  }
  const size_t last = run.metrics.rows() - 1;
  s.time_s = run.metrics.number(last, "time_s");
  s.bytes = run.metrics.number(last, "bytes_sent");
  return s;
}

std::string mean_std(const std::vector<double>& v, double scale, int digits) {
  double mean = 0, var = 0;
  for (double x : v) mean += x / static_cast<double>(v.size());
  for (double x : v) var += (x - mean) * (x - mean);
  if (v.size() < 2) return fmt::format("{:.{}f}", scale * mean, digits);
  return fmt::format("{:.{}f} ± {:.{}f}", scale * mean, digits,
                     scale * std::sqrt(var / static_cast<double>(v.size() - 1)), digits);
}

const CsvSchema& curves_schema() {
  static const CsvSchema schema("curves.csv", {{"optimizer"},
                                               {"seed"},
                                               {"step"},
                                               {"samples"},
                                               {"epoch"},
                                               {"time_s"},
                                               {"stage"},
                                               {"train_loss"},
                                               {"test_loss"},
                                               {"test_accuracy"},
                                               {"bytes_sent"}});
  return schema;
}

const CsvSchema& summary_schema() {
  static const CsvSchema schema("summary.csv", {{"optimizer"},
                                                {"seed"},
                                                {"final_test_accuracy", "{:.6f}"},
                                                {"final_test_loss", "{:.6f}"},
                                                {"time_s", "{:.6f}"},
                                                {"bytes_sent", "{:.0f}"}});
  return schema;
}

}  // namespace

std::string run_convergence_study(const StudyContext& context) {
  const std::vector<int> seeds = training_seeds(context);
  const std::vector<TrainingRun> runs = training_runs(context, convergence_optimizers(), seeds);
  CsvWriter curves(curves_schema());
  CsvWriter summary(summary_schema());
  std::map<std::string, std::vector<Summary>> by_optimizer;
  for (const TrainingRun& run : runs) {
    const CsvTable& m = run.metrics;
    for (size_t r = 0; r < m.rows(); ++r) {
      curves.add({run.optimizer, run.seed, m.text(r, "step"), m.text(r, "samples"),
                  m.text(r, "epoch"), m.text(r, "time_s"), m.text(r, "stage"),
                  m.text(r, "train_loss"), m.text(r, "test_loss"), m.text(r, "test_accuracy"),
                  m.text(r, "bytes_sent")});
    }
    const Summary s = summarize(run);
    summary.add({run.optimizer, run.seed, s.accuracy, s.loss, s.time_s, s.bytes});
    by_optimizer[run.optimizer].push_back(s);
  }
  context.write_file("curves.csv", curves.text());
  context.write_file("summary.csv", summary.text());

  MarkdownTable table(
      {"optimizer", "test accuracy %", "test loss", "simulated time s", "MB sent per rank"});
  for (const std::string& name : convergence_optimizers()) {
    std::vector<double> acc, loss, time, mb;
    for (const Summary& s : by_optimizer[name]) {
      if (s.accuracy) acc.push_back(*s.accuracy);
      if (s.loss) loss.push_back(*s.loss);
      time.push_back(s.time_s);
      mb.push_back(s.bytes / 1e6);
    }
    table.add({name, acc.empty() ? "—" : mean_std(acc, 100, 2),
               loss.empty() ? "—" : mean_std(loss, 1, 4), mean_std(time, 1, 2),
               mean_std(mb, 1, 1)});
  }
  return fmt::format(
      "Fashion-MNIST MLP (784-256-256-10), 16 ranks (4 nodes x 4 on ethernet-v100-4) x batch 32, "
      "{} epoch(s), seed(s) {}; 1-bit Adam and 1-bit LAMB freeze after 15% of the steps. "
      "Simulated time stands in for BERT-Large pre-training (sequence 128, 16 sequences per "
      "V100, fp16): each step charges that model's compute on the simulated V100s and its message "
      "sizes on the simulated network, while the math is the MLP's; it is deterministic (the same "
      "on every machine). Mean ± sample standard deviation over seeds. The papers train other "
      "models (BERT, ResNet), so there is "
      "no published accuracy to set beside these; what is checked is the papers' claim in kind: "
      "whether each compressed optimizer reaches its baseline's accuracy, and how far naive "
      "1-bit Adam falls behind (docs/reproduction.md discusses the results).\n\n{}",
      context.full ? 10 : 2, fmt::join(seeds, ", "), table.str());
}

}  // namespace compopt::cli::reproduce
