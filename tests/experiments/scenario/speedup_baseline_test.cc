// The one definition of a sweep's baseline (experiments/scenario/speedup_baseline.h) and the
// two sweep.csv columns it gives, against hours the tests choose.

#include "experiments/scenario/speedup_baseline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/optim/optimizer_registry.h"

namespace compopt::cli {
namespace {

TEST(SpeedupBaseline, TheTrainingBaselineElseTheRegistrys) {
  EXPECT_EQ(speedup_baseline("onebit-adam", ""), "adam");
  EXPECT_EQ(speedup_baseline("birder", ""), "adam");
  EXPECT_EQ(speedup_baseline("onebit-lamb", ""), "lamb");
  EXPECT_EQ(speedup_baseline("ef-momentum-sgd", ""), "momentum-sgd");
  EXPECT_EQ(speedup_baseline("lamb", ""), "lamb");  // a baseline is its own
  EXPECT_EQ(speedup_baseline("onebit-adam", "lamb"), "lamb");
  EXPECT_EQ(speedup_baseline("adam", "lamb"), "lamb");
}

TEST(SpeedupBaseline, EveryDeclaredBaselineIsARegisteredBaseline) {
  for (const OptimizerEntry& e : optimizer_registry().entries()) {
    if (e.baseline.empty()) continue;
    ASSERT_TRUE(optimizer_registry().contains(e.baseline)) << e.name;
    EXPECT_EQ(optimizer_registry().get(e.baseline).baseline, "") << e.name;
    // A baseline sends its gradient uncompressed.
    for (const StageSpec& stage : optimizer_registry().get(e.baseline).stages)
      EXPECT_EQ(stage.pattern, CommPattern::kRing) << e.name;
  }
}

// A sweep CSV with the columns the speedup reads: two groups (gpus 8 and 16).
std::string sweep_csv(const std::string& rows) {
  return "workload,cluster,topology,nodes,gpus_per_node,gpus,inter_node_gbit_s,batch_per_gpu,"
         "grad_accum,overlap,implementation,gpu,compute_precision,nics_per_node,rail_optimized,"
         "optimizer,stage,"
         "time_to_train_h\n" +
         rows;
}

std::string row(int gpus, const std::string& optimizer, const std::string& stage,
                const std::string& hours) {
  return "w,c,star,2," + std::to_string(gpus / 2) + "," + std::to_string(gpus) +
         ",40,16,1,0,ddp,V100,fp16,1,0," + optimizer + "," + stage + "," + hours + "\n";
}

// The last two cells of each data line: end_to_end_speedup and speedup_baseline.
std::vector<std::string> added_cells(const std::string& csv) {
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_THAT(line, testing::EndsWith(",time_to_train_h,end_to_end_speedup,speedup_baseline"));
  std::vector<std::string> cells;
  while (std::getline(lines, line)) {
    const size_t last = line.rfind(','), before = line.rfind(',', last - 1);
    cells.push_back(line.substr(before + 1));
  }
  return cells;
}

TEST(SpeedupColumns, EachRowAgainstItsGroupsBaseline) {
  const std::string csv =
      sweep_csv(row(8, "adam", "full_precision", "6") + row(8, "onebit-adam", "warmup", "2") +
                row(8, "onebit-adam", "compression", "2") + row(8, "birder", "compression", "1.5") +
                row(16, "onebit-adam", "warmup", "3") + row(16, "lamb", "full_precision", "4") +
                row(16, "onebit-lamb", "compression", ""));
  EXPECT_EQ(added_cells(with_speedup_columns(csv, "")),
            (std::vector<std::string>{"1.0000,adam", "3.0000,adam", "3.0000,adam", "4.0000,adam",
                                      ",adam",  // no adam among the 16-GPU scenarios
                                      "1.0000,lamb", ",lamb"}));  // no time to train
  // A baseline for all: birder's 1.5 h.
  EXPECT_EQ(added_cells(with_speedup_columns(csv, "birder")),
            (std::vector<std::string>{"0.2500,birder", "0.7500,birder", "0.7500,birder",
                                      "1.0000,birder", ",birder", ",birder", ",birder"}));
}

}  // namespace
}  // namespace compopt::cli
