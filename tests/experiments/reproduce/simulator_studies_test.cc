// The simulator studies of `compopt reproduce`, run at quick scale into a
// temporary run directory and checked against the published calibration rows,
// the exact byte arithmetic of the collectives, and invariants of the curves.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/util/csv_table.h"
#include "experiments/reproduce/compression_pairs.h"
#include "experiments/reproduce/simulated_scenarios.h"
#include "experiments/reproduce/study.h"
#include "sim/scenario.h"
#include "sim/step_simulator.h"

namespace compopt::cli::reproduce {
namespace {

namespace fs = std::filesystem;

class SimulatorStudies : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("compopt_studies_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Runs the study; returns its report section and one of its CSVs.
  CsvTable run(const std::string& study, const std::string& csv, std::string* section = nullptr) {
    StudyContext context{root_ / study, false, 2};
    fs::create_directories(context.dir);
    const std::string body = study_registry().get(study).run(context);
    if (section) *section = body;
    std::ifstream in(context.dir / csv);
    std::ostringstream text;
    text << in.rdbuf();
    return CsvTable(text.str(), csv);
  }

  fs::path root_;
};

TEST(SimulatedScenarios, SteadyStageIsTheCompressionStageElseTheOnly) {
  sim::StageTiming warmup, compression, full;
  warmup.stage = "warmup";
  compression.stage = "compression";
  full.stage = "full_precision";
  const StageTimings onebit = {warmup, compression}, adam = {full};
  EXPECT_EQ(&steady_stage(onebit), &onebit[1]);
  EXPECT_EQ(&steady_stage(adam), &adam[0]);
}

TEST_F(SimulatorStudies, ProfileHasEveryPublishedRowWithinTheCalibrationTarget) {
  const CsvTable t = run("profile", "profile.csv");
  int adam_rows = 0;
  for (size_t r = 0; r < t.rows(); ++r) {
    if (t.text(r, "optimizer") != "adam") {
      EXPECT_FALSE(t.maybe(r, "published_allreduce_ms").has_value());
      continue;
    }
    ++adam_rows;
    const double ours = t.number(r, "allreduce_ms"), paper = t.number(r, "published_allreduce_ms");
    EXPECT_LT(std::abs(ours - paper) / paper, 0.25) << "row " << r;  // docs/calibration.md target
    EXPECT_LT(std::abs(t.number(r, "allreduce_pct") - t.number(r, "published_allreduce_pct")), 8.0);
  }
  EXPECT_EQ(adam_rows, 13);  // data/published/onebit_adam_profile.csv
}

TEST_F(SimulatorStudies, HierarchicalSavesTheExactByteRatioOfTheCollectives) {
  const CsvTable t = run("hierarchical", "hierarchical.csv");
  std::map<std::pair<int, int>, std::map<std::string, double>> bytes;
  for (size_t r = 0; r < t.rows(); ++r)
    bytes[{static_cast<int>(t.number(r, "nodes")), static_cast<int>(t.number(r, "gpus_per_node"))}]
         [t.text(r, "scheme")] = t.number(r, "inter_node_bytes_per_node");
  // docs/collectives.md: flat / hierarchical inter-node bytes 1.75 (2x2), 2.86 (2x4), 1.58 (4x2).
  const auto ratio = [&](int n, int g) {
    return bytes[{n, g}]["flat"] / bytes[{n, g}]["hierarchical"];
  };
  EXPECT_NEAR(ratio(2, 2), 1.75, 0.02);
  EXPECT_NEAR(ratio(2, 4), 2.86, 0.03);
  EXPECT_NEAR(ratio(4, 2), 1.58, 0.02);
  for (const auto& [key, by_scheme] : bytes)
    EXPECT_GT(by_scheme.at("flat"), by_scheme.at("hierarchical"));
}

// The baseline's step in ms at an effective inter-node rate with the allreduce algorithm forced.
double forced_baseline_ms(const CsvTable& t, size_t r, double effective_gbps,
                          const std::string& algorithm) {
  for (const CompressionPair& p : compression_pairs()) {
    if (p.workload != t.text(r, "workload") || p.optimizer != t.text(r, "optimizer") ||
        p.baseline != t.text(r, "baseline"))
      continue;
    sim::StepConfig c = sim::resolve_scenario(
        pair_scenario(p, p.baseline, static_cast<int>(t.number(r, "gpus")), effective_gbps));
    c.cluster.allreduce_algorithm = algorithm;
    return 1e3 * sim::simulate_step(c).front().step_time_s;
  }
  ADD_FAILURE() << "row " << r << ": no compression pair";
  return 0;
}

// More bandwidth never makes a step slower at a given allreduce algorithm. NCCL's default picks
// ring or tree by its own tuning model, which may switch to the one the simulator times slower
// (docs/simulator.md, "Allreduce algorithms"): where the default baseline's step rises, it must
// be one of the two forced algorithms' steps, and each of those must not rise. (The speedup
// itself need not fall monotonically: once the inter-node links outrun the intra-node ones the
// ring allreduce stops improving while the all-to-all of the compressed one still does.)
TEST_F(SimulatorStudies, BandwidthSweepStepTimesFallAsBandwidthGrows) {
  const CsvTable t = run("bandwidth", "bandwidth.csv");
  std::map<std::string, std::pair<double, double>> last;
  std::map<std::string, double> last_rate;
  for (size_t r = 0; r < t.rows(); ++r) {
    const std::string pair = t.text(r, "workload") + t.text(r, "optimizer") + t.text(r, "baseline");
    const double base = t.number(r, "baseline_step_ms"), comp = t.number(r, "compressed_step_ms");
    const double s = t.number(r, "speedup");
    const double rate = t.number(r, "inter_node_effective_gbit_s");
    EXPECT_NEAR(s, base / comp, 1e-3 * s);
    if (last.contains(pair)) {
      EXPECT_LE(comp, last[pair].second * 1.0001) << "row " << r;
      if (base > last[pair].first * 1.0001) {
        bool is_one_of_them = false;
        for (const char* algorithm : {"ring", "tree"}) {
          const double now = forced_baseline_ms(t, r, rate, algorithm);
          EXPECT_LE(now, forced_baseline_ms(t, r, last_rate[pair], algorithm) * 1.0001)
              << "row " << r << " " << algorithm;
          is_one_of_them = is_one_of_them || std::abs(now - base) < 1e-3 * base;
        }
        EXPECT_TRUE(is_one_of_them) << "row " << r;
      }
    }
    last[pair] = {base, comp};
    last_rate[pair] = rate;
    // The effective rate is the nominal NIC rate times the preset's efficiency (< 1).
    const double effective = t.number(r, "inter_node_effective_gbit_s");
    EXPECT_NEAR(effective, t.number(r, "inter_node_gbit_s") * t.number(r, "inter_node_efficiency"),
                1e-5 * effective);
    EXPECT_LE(t.number(r, "inter_node_efficiency"), 1.0);
    if (effective <= 0.05) {
      EXPECT_GT(s, 3.0) << "row " << r;
    }
  }
  EXPECT_EQ(last.size(), 7u);
}

// The bandwidth sweep's curve of a pair (against NCCL's default) crosses 1 on the same side
// of `b` as the NCCL-default break-even says.
void expect_sweep_crosses_at(const CsvTable& sweep, const CsvTable& t, size_t r, double b) {
  for (size_t s = 0; s < sweep.rows(); ++s) {
    if (sweep.text(s, "workload") != t.text(r, "workload") ||
        sweep.text(s, "optimizer") != t.text(r, "optimizer") ||
        sweep.text(s, "baseline") != t.text(r, "baseline"))
      continue;
    const double gbps = sweep.number(s, "inter_node_effective_gbit_s");
    if (gbps < 0.98 * b) {
      EXPECT_GT(sweep.number(s, "speedup"), 1.0) << gbps;
    }
    if (gbps > 1.02 * b) {
      EXPECT_LE(sweep.number(s, "speedup"), 1.0) << gbps;
    }
  }
}

// Against the tuned baseline (never slower than NCCL's default) compression pays less at every
// bandwidth, so its break-even is no later than the NCCL-default one (to the 1% brackets).
TEST_F(SimulatorStudies, BreakEvenIsInsideItsBracketAndAgreesWithTheSweep) {
  const CsvTable t = run("break_even", "break_even.csv");
  const CsvTable sweep = run("bandwidth", "bandwidth.csv");
  int found = 0;
  for (size_t r = 0; r < t.rows(); ++r) {
    const std::string status = t.text(r, "status"), nccl = t.text(r, "nccl_default_status");
    EXPECT_TRUE(status == "found" || status == "above_range" || status == "below_range");
    EXPECT_TRUE(nccl == "found" || nccl == "algorithm_switch" || nccl == "above_range" ||
                nccl == "below_range");
    EXPECT_TRUE(t.text(r, "tuned_algorithm") == "ring" || t.text(r, "tuned_algorithm") == "tree");
    EXPECT_GT(t.number(r, "speedup_at_lo"), 1.0);
    if (nccl == "found" || nccl == "algorithm_switch") {
      const double d = t.number(r, "nccl_default_break_even_effective_gbit_s");
      expect_sweep_crosses_at(sweep, t, r, d);
      if (status == "found") {
        EXPECT_LE(t.number(r, "break_even_effective_gbit_s"), 1.02 * d);
      }
    }
    if (status != "found") continue;
    ++found;
    const double b = t.number(r, "break_even_effective_gbit_s");
    EXPECT_GT(b, t.number(r, "search_lo_effective_gbit_s"));
    EXPECT_LT(b, t.number(r, "search_hi_effective_gbit_s"));
  }
  EXPECT_GT(found, 0);
}

TEST_F(SimulatorStudies, ScalabilityMarksOnlyBirdersSingleNodePointsAsPublished) {
  std::string section;
  const CsvTable t = run("scalability", "scalability.csv", &section);
  int published = 0;
  for (size_t r = 0; r < t.rows(); ++r) {
    if (!t.maybe(r, "published_throughput_samples_s")) continue;
    EXPECT_EQ(t.number(r, "gpus"), 8);
    ++published;
  }
  EXPECT_EQ(published, 9 + 3);  // 9 rows, plus 1-bit Adam's warmup-stage rows at the 3 settings
  EXPECT_NE(section.find("| resnet50-imagenet | momentum-sgd | 8 | 32 | "), std::string::npos);
}

}  // namespace
}  // namespace compopt::cli::reproduce
