// 1-bit LAMB's layer-wise scaling ([1BL] Fig. 1 and 6): the per-tensor LAMB
// trust coefficient c_t of LAMB and of 1-bit LAMB (whose coefficient is
// c_avg x r_t once compression starts) and 1-bit LAMB's ratio r_t over
// training, on the Fashion-MNIST runs shared with the convergence study.

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "core/util/csv_schema.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/study.h"
#include "experiments/reproduce/training_runs.h"

namespace compopt::cli::reproduce {

std::string run_lamb_study(const StudyContext& context) {
  const std::vector<TrainingRun> runs = training_runs(context, {"lamb", "onebit-lamb"}, {1});
  static const CsvSchema schema(
      "coefficients.csv",
      {{"optimizer"}, {"step"}, {"stage"}, {"layer"}, {"layer_name"}, {"coefficient"}, {"ratio"}});
  CsvWriter csv(schema);
  struct Range {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, last = 0;
    bool any = false;
    void add(double v) { lo = std::min(lo, v), hi = std::max(hi, v), last = v, any = true; }
    std::string str() const { return any ? fmt::format("{:.3g} – {:.3g}", lo, hi) : "—"; }
  };
  std::map<std::string, std::map<std::string, Range>> coefficient;  // [optimizer][layer]
  std::map<std::string, Range> ratio;
  std::vector<std::string> layers;
  for (const TrainingRun& run : runs) {
    const CsvTable& t = run.layers;
    for (size_t r = 0; r < t.rows(); ++r) {
      const std::string& layer = t.text(r, "layer_name");
      csv.add({run.optimizer, t.text(r, "step"), t.text(r, "stage"), t.text(r, "layer"), layer,
               t.text(r, "coefficient"), t.text(r, "ratio")});
      if (std::find(layers.begin(), layers.end(), layer) == layers.end()) layers.push_back(layer);
      coefficient[run.optimizer][layer].add(t.number(r, "coefficient"));
      if (auto v = t.maybe(r, "ratio")) ratio[layer].add(*v);
    }
  }
  context.write_file("coefficients.csv", csv.text());
  MarkdownTable table({"tensor", "LAMB c_t range", "LAMB final c_t", "1-bit LAMB c_t range",
                       "1-bit LAMB final c_t", "1-bit LAMB r_t range"});
  for (const std::string& layer : layers) {
    const Range& l = coefficient["lamb"][layer];
    const Range& o = coefficient["onebit-lamb"][layer];
    table.add({layer, l.str(), fmt::format("{:.3g}", l.last), o.str(),
               fmt::format("{:.3g}", o.last), ratio[layer].str()});
  }
  return fmt::format(
      "Per-tensor trust coefficients on the Fashion-MNIST MLP runs of the convergence study "
      "(LAMB and 1-bit LAMB, lr 5e-3, clip [0.01, 10]; 1-bit LAMB freezes after 15% of the steps "
      "and then scales its frozen average coefficient by r_t, clipped to [0.5, 4] and to ±10% "
      "of the previous r_t per step). [1BL] shows the coefficients settling within the first "
      "part of training, which is what makes freezing their average safe; its figures are for "
      "BERT and give no numbers to set beside these.\n\n{}",
      table.str());
}

}  // namespace compopt::cli::reproduce
