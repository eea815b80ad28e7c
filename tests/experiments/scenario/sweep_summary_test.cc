#include "experiments/scenario/sweep_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

SweepRow row(int gpus, const std::string& optimizer, const std::string& stage, double step_s) {
  return {.workload = "w",
          .cluster = "c",
          .topology = "star",
          .gpus = gpus,
          .gpus_per_node = 4,
          .inter_node_gbps = 40,
          .batch_per_gpu = 16,
          .grad_accum = 1,
          .overlap = "off",
          .buckets = 0,
          .optimizer = optimizer,
          .stage = stage,
          .buckets_used = 1,
          .algorithm = optimizer == "adam" ? "ring" : "compressed-flat",
          .compute_utilization = 0.5,
          .compute_utilization_source = "borrowed",
          .step_time_s = step_s};
}

// The table's lines after the header (from the column titles on).
std::vector<std::string> table_lines(const std::string& summary, const std::string& first) {
  std::vector<std::string> lines;
  size_t start = summary.find(first + "  ");
  while (start != std::string::npos && start < summary.size()) {
    const size_t end = summary.find('\n', start);
    lines.push_back(summary.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Two groups (8 and 16 GPUs); speedups are the baseline's step time over each optimizer's,
// onebit-adam's from its compression stage: 2/0.5, 2/0.4, 3/1, 3/1.5.
std::vector<SweepRow> two_groups() {
  return {row(8, "adam", "full_precision", 2.0), row(16, "adam", "full_precision", 3.0),
          row(8, "onebit-adam", "warmup", 2.0),  row(8, "onebit-adam", "compression", 0.5),
          row(16, "onebit-adam", "warmup", 3.0), row(16, "onebit-adam", "compression", 1.0),
          row(8, "birder", "compression", 0.4),  row(16, "birder", "compression", 1.5)};
}

TEST(SweepSummary, OneLinePerGroupWithSpeedupsOverTheBaseline) {
  const std::string summary = sweep_summary(two_groups(), "");
  EXPECT_EQ(table_lines(summary, "gpus"),
            (std::vector<std::string>{"gpus  adam    onebit-adam         birder",
                                      "   8  2000  500.0 (4.00x)  400.0 (5.00x)",
                                      "  16  3000   1000 (3.00x)   1500 (2.00x)"}));
}

TEST(SweepSummary, HeaderNamesTheBaselineTheSteadyStageAndTheFixedFields) {
  const std::string summary = sweep_summary(two_groups(), "");
  EXPECT_THAT(summary,
              HasSubstr("\nspeedup against: adam for onebit-adam, birder (registry baselines)\n"));
  EXPECT_THAT(summary, HasSubstr("onebit-adam: compression stage (steady state)"));
  EXPECT_THAT(summary, HasSubstr("same in all rows: workload w, cluster c, topology star"));
  EXPECT_THAT(summary, HasSubstr("Gbit/s 40"));
  EXPECT_THAT(summary, Not(HasSubstr("buckets given")));  // meaningless without overlap
  // What was charged, as used (not "25MB" when one bucket went out), the utilisation and where
  // it comes from.
  EXPECT_THAT(summary, HasSubstr("charged: adam: ring, 1 bucket; onebit-adam: compressed-flat, "
                                 "1 bucket;\n  birder: compressed-flat, 1 bucket; compute "
                                 "utilisation 50.0% (borrowed)\n"));
  for (size_t start = 0; start < summary.size();) {
    const size_t end = summary.find('\n', start);
    EXPECT_LE(end - start, 100u) << summary.substr(start, end - start);
    start = end + 1;
  }
}

TEST(SweepSummary, VaryingFieldsBecomeColumns) {
  std::vector<SweepRow> rows = {row(8, "adam", "full_precision", 1.0),
                                row(8, "birder", "compression", 0.25)};
  rows.push_back(rows[0]);
  rows.push_back(rows[1]);
  rows[2].inter_node_gbps = rows[3].inter_node_gbps = 400;
  rows[2].step_time_s = 0.5;
  const std::string summary = sweep_summary(rows, "");
  EXPECT_EQ(
      table_lines(summary, "Gbit/s"),
      (std::vector<std::string>{"Gbit/s   adam         birder", "    40   1000  250.0 (4.00x)",
                                "   400  500.0  250.0 (2.00x)"}));
}

// Each optimizer against its own baseline (speedup_baseline.h), wherever the sweep lists it:
// birder against adam, listed last; lamb, listed first and a baseline itself, has no speedup.
TEST(SweepSummary, EachOptimizerAgainstItsRegistryBaseline) {
  const std::string summary =
      sweep_summary({row(8, "lamb", "full_precision", 0.1), row(8, "birder", "compression", 0.05),
                     row(8, "adam", "full_precision", 0.2)},
                    "");
  EXPECT_THAT(summary, HasSubstr("speedup against: adam for birder (registry baselines)"));
  EXPECT_EQ(table_lines(summary, "lamb").back(), "100.0  50.00 (4.00x)  200.0");
}

TEST(SweepSummary, ABaselineOutsideTheSweepGivesNoSpeedup) {
  const std::string summary = sweep_summary(
      {row(8, "birder", "compression", 0.5), row(8, "ef-momentum-sgd", "compression", 0.25)}, "");
  EXPECT_THAT(summary, HasSubstr("\nspeedup against: adam (not in the sweep) for birder;\n"
                                 "  momentum-sgd (not in the sweep) for ef-momentum-sgd (registry "
                                 "baselines)\n"));
  EXPECT_EQ(table_lines(summary, "birder").back(), " 500.0            250.0");
}

TEST(SweepSummary, OnlyBaselinesGiveNoSpeedup) {
  const std::string summary = sweep_summary(
      {row(8, "adam", "full_precision", 0.5), row(8, "lamb", "full_precision", 0.25)}, "");
  EXPECT_THAT(summary,
              HasSubstr("speedup against: none, every optimizer is its own registry baseline"));
  EXPECT_THAT(summary, Not(HasSubstr("x)")));
}

// The [training] baseline replaces every optimizer's: here birder, so adam and onebit-adam
// are slower than it (400 ms / theirs).
TEST(SweepSummary, TheTrainingBaselineIsEveryOptimizers) {
  const std::string summary = sweep_summary(two_groups(), "birder");
  EXPECT_THAT(summary, HasSubstr("\nspeedup against: birder (the [training] baseline)\n"));
  EXPECT_EQ(table_lines(summary, "gpus"),
            (std::vector<std::string>{"gpus          adam    onebit-adam  birder",
                                      "   8  2000 (0.20x)  500.0 (0.80x)   400.0",
                                      "  16  3000 (0.50x)   1000 (1.50x)    1500"}));
  const std::string absent = sweep_summary(two_groups(), "lamb");
  EXPECT_THAT(absent, HasSubstr("speedup against: lamb (the [training] baseline, not in the "
                                "sweep: no speedups)"));
  EXPECT_THAT(absent, Not(HasSubstr("x)")));
}

TEST(SweepSummary, MissingOptimizerOfAGroupIsADash) {
  std::vector<SweepRow> rows = two_groups();
  rows.pop_back();  // birder on 16 GPUs
  EXPECT_EQ(table_lines(sweep_summary(rows, ""), "gpus").back(),
            "  16  3000   1000 (3.00x)              -");
}

// Rows with bounds show [low..high] ms after the expected time, and the header says what
// they are; the speedup stays the expected one.
TEST(SweepSummary, BoundsFollowTheExpectedTime) {
  std::vector<SweepRow> rows = {row(8, "adam", "full_precision", 2.0),
                                row(8, "birder", "compression", 0.5)};
  rows[0].step_time_low_s = 1.8;
  rows[0].step_time_high_s = 2.5;
  rows[1].step_time_low_s = 0.45;
  rows[1].step_time_high_s = 0.6;
  const std::string summary = sweep_summary(rows, "");
  EXPECT_THAT(summary, HasSubstr("[low..high]: ms, the band over the measured inputs"));
  EXPECT_EQ(table_lines(summary, "adam").back(), "2000 [1800..2500]  500.0 [450.0..600.0] (4.00x)");
  EXPECT_THAT(sweep_summary(two_groups(), ""), Not(HasSubstr("low..high")));
}

TEST(SweepSummary, EmptyRowsGiveNoTable) { EXPECT_EQ(sweep_summary({}, ""), ""); }

TEST(SweepSummary, SweepRowTakesTheResolvedValues) {
  sim::Scenario scenario;
  scenario.optimizer = "sgdm";
  scenario.gpus = 8;
  scenario.inter_node_gbps = 25;
  const sim::StepConfig config = sim::resolve_scenario(scenario);
  sim::StageTiming timing;
  timing.stage = "full_precision";
  timing.step_time_s = 0.125;
  const SweepRow r = sweep_row(config, timing);
  EXPECT_EQ(r.optimizer, "momentum-sgd");  // canonical, as sweep.csv prints it
  EXPECT_EQ(r.gpus, 8);
  EXPECT_EQ(r.gpus_per_node, config.cluster.gpus_per_node);
  EXPECT_EQ(r.inter_node_gbps, 25);
  EXPECT_EQ(r.batch_per_gpu, config.workload.default_batch_per_gpu);
  EXPECT_EQ(r.workload, config.workload.name);
  EXPECT_EQ(r.cluster, scenario.cluster);
  EXPECT_EQ(r.stage, "full_precision");
  EXPECT_EQ(r.step_time_s, 0.125);
}

}  // namespace
}  // namespace compopt::cli
