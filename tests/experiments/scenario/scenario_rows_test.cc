// sweep.csv and the printed table from simulated steps (experiments/scenario/scenario_rows.h,
// sweep_totals.h, sweep_summary.h) agree on what the speedups are against, also where the
// sweep's first optimizer is not the baseline of the others.

#include "experiments/scenario/scenario_rows.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/util/csv_table.h"
#include "experiments/scenario/sweep_totals.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

struct SweepOutput {
  std::vector<SimulatedStep> steps;  // lamb, onebit-adam, adam
  std::string csv;                   // before finish_sweep
  std::vector<SweepRow> rows;
};

// lamb first, then onebit-adam (whose registry baseline is adam), then adam; 8 GPUs each,
// 1000 steps with a 10% warmup.
const SweepOutput& lamb_onebit_adam() {
  static const SweepOutput out = [] {
    sim::TrainingSpec training;
    training.total_steps = 1000;
    training.warmup_fraction = 0.1;
    std::vector<sim::Scenario> scenarios;
    for (const char* optimizer : {"lamb", "onebit-adam", "adam"}) {
      sim::Scenario& s = scenarios.emplace_back();
      s.optimizer = optimizer;
      s.gpus = 8;
      s.training = training;
    }
    SweepOutput o;
    o.steps = simulate_forked(scenarios, {.parallel = 2, .spread = true});
    o.csv = sweep_csv(scenarios, o.steps, o.rows);
    return o;
  }();
  return out;
}

// sweep.csv's cells of `column` by "optimizer/stage".
std::map<std::string, std::string> cells(const std::string& csv, const std::string& column) {
  const CsvTable table(csv, "sweep.csv");
  std::map<std::string, std::string> out;
  for (size_t r = 0; r < table.rows(); ++r)
    out[table.text(r, "optimizer") + "/" + table.text(r, "stage")] = table.text(r, column);
  return out;
}

double hours(const std::string& csv, const std::string& optimizer_stage) {
  return std::stod(cells(csv, "time_to_train_h").at(optimizer_stage));
}

// The table's line of the one group, after the column titles.
std::string group_line(const std::string& summary) {
  const size_t titles = summary.find("lamb  ");
  const size_t start = summary.find('\n', titles) + 1;
  return summary.substr(start, summary.find('\n', start) - start);
}

TEST(SweepRows, OneRowPerStageOfEachScenario) {
  const SweepOutput& o = lamb_onebit_adam();
  ASSERT_EQ(o.rows.size(), 4u);  // lamb, onebit-adam warmup and compression, adam
  EXPECT_EQ(CsvTable(o.csv, "sweep.csv").rows(), 4u);
  EXPECT_EQ(o.rows[2].stage, "compression");
  EXPECT_EQ(o.rows[2].step_time_s, o.steps[1].timings.back().step_time_s);
}

TEST(SweepRows, TableAndCsvAgreeOnTheRegistryBaseline) {
  const SweepOutput& o = lamb_onebit_adam();
  sim::TrainingSpec training;  // no [training] baseline
  const std::string csv = finish_sweep(o.csv, training).csv;
  EXPECT_EQ(cells(csv, "speedup_baseline"),
            (std::map<std::string, std::string>{{"lamb/full_precision", "lamb"},
                                                {"onebit-adam/warmup", "adam"},
                                                {"onebit-adam/compression", "adam"},
                                                {"adam/full_precision", "adam"}}));
  EXPECT_EQ(cells(csv, "end_to_end_speedup").at("onebit-adam/compression"),
            fmt::format("{:.4f}",
                        hours(csv, "adam/full_precision") / hours(csv, "onebit-adam/compression")));
  const std::string summary = sweep_summary(o.rows, training.baseline);
  EXPECT_THAT(summary, HasSubstr("speedup against: adam for onebit-adam (registry baselines)"));
  const double adam = o.steps[2].timings[0].step_time_s;
  const double onebit = o.steps[1].timings.back().step_time_s;
  const std::string line = group_line(summary);
  EXPECT_THAT(line, HasSubstr(fmt::format("({:.2f}x)", adam / onebit))) << summary;
  EXPECT_EQ(line.find("x)"), line.rfind("x)")) << "lamb and adam have no speedup: " << line;
}

TEST(SweepRows, TableAndCsvAgreeOnTheTrainingBaseline) {
  const SweepOutput& o = lamb_onebit_adam();
  sim::TrainingSpec training;
  training.baseline = "lamb";
  const std::string csv = finish_sweep(o.csv, training).csv;
  for (const auto& [row, baseline] : cells(csv, "speedup_baseline")) EXPECT_EQ(baseline, "lamb");
  EXPECT_EQ(
      cells(csv, "end_to_end_speedup").at("adam/full_precision"),
      fmt::format("{:.4f}", hours(csv, "lamb/full_precision") / hours(csv, "adam/full_precision")));
  const std::string summary = sweep_summary(o.rows, training.baseline);
  EXPECT_THAT(summary, HasSubstr("speedup against: lamb (the [training] baseline)"));
  const double lamb = o.steps[0].timings[0].step_time_s;
  const std::string line = group_line(summary);
  EXPECT_THAT(line,
              HasSubstr(fmt::format("({:.2f}x)", lamb / o.steps[1].timings.back().step_time_s)));
  EXPECT_THAT(line, HasSubstr(fmt::format("({:.2f}x)", lamb / o.steps[2].timings[0].step_time_s)));
}

}  // namespace
}  // namespace compopt::cli
