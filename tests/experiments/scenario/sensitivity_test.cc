// One-at-a-time sensitivity (experiments/scenario/sensitivity.h, sensitivity_report.h): the
// scenarios a plan lists, the speedups and flips evaluate_sensitivity derives from step times
// the tests choose, the verdict line and sensitivity.csv.

#include "experiments/scenario/sensitivity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/util/csv_table.h"
#include "core/util/error.h"
#include "experiments/scenario/sensitivity_inputs.h"
#include "experiments/scenario/sensitivity_report.h"
#include "net_models/bandwidth_spread.h"
#include "sim/input_ranges.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

sim::StepConfig onebit_adam() {
  sim::Scenario s;
  s.optimizer = "onebit-adam";
  return sim::resolve_scenario(s);
}

size_t input_index(const std::string& name) {
  const std::vector<UncertainInput>& inputs = uncertain_inputs();
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].name == name) return k;
  ADD_FAILURE() << "no input " << name;
  return 0;
}

// Step times of a plan where every pair gives `speedup` (optimizer 1 s, baseline `speedup` s).
std::vector<double> uniform_times(const SensitivityPlan& plan, double speedup) {
  std::vector<double> times;
  for (size_t i = 0; i < plan.scenarios.size(); i += 2) {
    times.push_back(1.0);
    times.push_back(speedup);
  }
  return times;
}

// The optimizer's and the baseline's times at one end of input k (layout of SensitivityPlan).
void set_end(std::vector<double>& times, size_t k, InputEnd end, double optimizer_s,
             double baseline_s) {
  const size_t i = 2 + 4 * k + (end == InputEnd::kHigh ? 2 : 0);
  times[i] = optimizer_s;
  times[i + 1] = baseline_s;
}

TEST(Sensitivity, PlanListsTheExpectedPairThenEachInputsEnds) {
  const sim::StepConfig config = onebit_adam();
  const SensitivityPlan plan = plan_sensitivity(config, "adam", "case");
  const size_t n = uncertain_inputs().size();
  ASSERT_EQ(plan.scenarios.size(), 2 + 4 * n);
  ASSERT_EQ(plan.low_values.size(), n);
  for (size_t i = 0; i < plan.scenarios.size(); ++i)
    EXPECT_EQ(plan.scenarios[i].optimizer, i % 2 == 0 ? "onebit-adam" : "adam") << i;
  const sim::StepConfig expected = sim::resolve_scenario(plan.scenarios[0]);
  EXPECT_EQ(expected.buckets, config.buckets);
  EXPECT_EQ(expected.cluster.inter_node_gbps, config.cluster.inter_node_gbps);
  // Buckets: 1 at the low end, 32 at the high end, for the optimizer and the baseline alike.
  const size_t b = input_index("buckets");
  EXPECT_EQ(sim::resolve_scenario(plan.scenarios[2 + 4 * b]).buckets, 1);
  EXPECT_EQ(sim::resolve_scenario(plan.scenarios[3 + 4 * b]).buckets, 1);
  EXPECT_EQ(sim::resolve_scenario(plan.scenarios[4 + 4 * b]).buckets, 32);
  EXPECT_EQ(plan.low_values[b], "1");
  EXPECT_EQ(plan.high_values[b], "32");
  const size_t a = input_index("allreduce algorithm");
  EXPECT_EQ(sim::resolve_scenario(plan.scenarios[2 + 4 * a]).cluster.allreduce_algorithm, "ring");
  EXPECT_EQ(sim::resolve_scenario(plan.scenarios[5 + 4 * a]).cluster.allreduce_algorithm, "tree");
  const size_t w = input_index("inter-node bandwidth");
  const net::BandwidthSpread spread = net::link_spreads(config.cluster).inter_node;
  ASSERT_LT(spread.low, 1);
  EXPECT_DOUBLE_EQ(sim::resolve_scenario(plan.scenarios[2 + 4 * w]).cluster.inter_node_gbps,
                   config.cluster.inter_node_gbps * spread.low);
  EXPECT_DOUBLE_EQ(sim::resolve_scenario(plan.scenarios[4 + 4 * w]).cluster.inter_node_gbps,
                   config.cluster.inter_node_gbps * spread.high);
  const size_t k = input_index("optimizer step kernel");
  EXPECT_EQ(sim::resolve_scenario(plan.scenarios[2 + 4 * k]).workload.step_bytes_per_param, 28);
  EXPECT_EQ(sim::resolve_scenario(plan.scenarios[4 + 4 * k]).workload.step_bytes_per_param, 178);
}

TEST(Sensitivity, EveryInputHasTwoDistinctEndsAndASource) {
  const SensitivityPlan plan = plan_sensitivity(onebit_adam(), "adam", "case");
  for (size_t k = 0; k < uncertain_inputs().size(); ++k) {
    EXPECT_NE(plan.low_values[k], plan.high_values[k]) << uncertain_inputs()[k].name;
    EXPECT_FALSE(plan.sources[k].empty());
  }
}

// The measured inputs come first, are those of sim/input_ranges.h and take the scenario's
// own ranges: the latency over tcp (ethernet-v100-4's 50 us x13.7/18.6 .. x34.2/18.6) differs
// from the one over rdma (x0.5 .. x2 of 2 us). The choices keep one range everywhere.
TEST(Sensitivity, MeasuredInputsTakeTheScenariosOwnRanges) {
  const std::vector<UncertainInput>& inputs = uncertain_inputs();
  ASSERT_EQ(inputs.size(), sim::measured_inputs().size() + 5);
  for (size_t k = 0; k < inputs.size(); ++k) {
    EXPECT_EQ(inputs[k].measured, k < sim::measured_inputs().size()) << inputs[k].name;
    if (inputs[k].measured) {
      EXPECT_EQ(inputs[k].name, sim::measured_inputs()[k].name);
    }
  }
  const size_t l = input_index("network latency");
  const SensitivityPlan eth = plan_sensitivity(onebit_adam(), "adam", "eth");
  EXPECT_EQ(eth.low_values[l], "36.8 us");
  EXPECT_EQ(eth.high_values[l], "91.9 us");
  EXPECT_THAT(eth.sources[l], HasSubstr("tcp: the measured TCP one-way time"));
  sim::Scenario ib_scenario;
  ib_scenario.optimizer = "onebit-adam";
  ib_scenario.cluster = "infiniband-v100-8";
  const SensitivityPlan ib = plan_sensitivity(sim::resolve_scenario(ib_scenario), "adam", "ib");
  EXPECT_EQ(ib.low_values[l], "1 us");
  EXPECT_EQ(ib.high_values[l], "4 us");
  EXPECT_THAT(ib.sources[l], HasSubstr("not measured over rdma"));
  const size_t b = input_index("buckets");
  EXPECT_EQ(eth.sources[b], ib.sources[b]);
}

// The two ends of the step kernel reach the simulated step: Adam's optimizer step at 178 bytes
// per parameter takes 178/28 of its time at 28 (the implementation profile does not override
// a figure the input sets).
TEST(Sensitivity, TheStepKernelsEndsChangeTheSimulatedStep) {
  sim::Scenario s;
  s.optimizer = "adam";
  s.overlap = sim::OverlapMode::kOff;
  const UncertainInput& kernel = uncertain_inputs()[input_index("optimizer step kernel")];
  sim::StepConfig fused = sim::resolve_scenario(s), unfused = fused;
  kernel.set(fused, InputEnd::kLow);
  kernel.set(unfused, InputEnd::kHigh);
  const double fused_s = sim::simulate_step(fused).front().step_s;
  const double unfused_s = sim::simulate_step(unfused).front().step_s;
  EXPECT_NEAR(unfused_s / fused_s, 178.0 / 28.0, 1e-9);
}

// Buckets alone turn the 1.10x of the scenario into 0.77x (1 s vs 0.77 s); its high end and
// every other input leave 1.10x, except the step kernel at 1.25x.
TEST(Sensitivity, OneInputThatFlipsTheVerdict) {
  const SensitivityPlan plan = plan_sensitivity(onebit_adam(), "adam", "case");
  std::vector<double> times = uniform_times(plan, 1.10);
  set_end(times, input_index("buckets"), InputEnd::kLow, 2.0, 1.54);
  set_end(times, input_index("optimizer step kernel"), InputEnd::kLow, 0.8, 1.0);
  const Sensitivity s = evaluate_sensitivity(plan, times);
  EXPECT_DOUBLE_EQ(s.expected_speedup, 1.10);
  EXPECT_DOUBLE_EQ(s.min_speedup, 0.77);
  EXPECT_DOUBLE_EQ(s.max_speedup, 1.25);
  for (const SensitivityRow& r : s.rows) {
    EXPECT_EQ(r.flips, r.input == "buckets") << r.input;
    if (r.input == "buckets") {
      EXPECT_DOUBLE_EQ(r.speedup_low, 0.77);
      EXPECT_DOUBLE_EQ(r.speedup_high, 1.10);
    }
  }
  EXPECT_EQ(sensitivity_verdict(s),
            "onebit-adam: 0.77x .. 1.25x, depends on: buckets (0.77x .. 1.10x)");
  EXPECT_THAT(sensitivity_table(s), HasSubstr("expected speedup 1.10x"));
}

TEST(Sensitivity, VerdictWithoutFlips) {
  const SensitivityPlan plan = plan_sensitivity(onebit_adam(), "adam", "case");
  std::vector<double> times = uniform_times(plan, 1.10);
  set_end(times, input_index("overlap"), InputEnd::kHigh, 1.0, 1.30);
  set_end(times, input_index("network latency"), InputEnd::kLow, 1.0, 1.05);
  EXPECT_EQ(sensitivity_verdict(evaluate_sensitivity(plan, times)),
            "onebit-adam pays in every case (1.05x .. 1.30x)");
  times = uniform_times(plan, 0.5);
  set_end(times, input_index("overlap"), InputEnd::kHigh, 1.0, 1.0);  // 1.00x: does not pay
  EXPECT_EQ(sensitivity_verdict(evaluate_sensitivity(plan, times)),
            "onebit-adam pays in no case (0.50x .. 1.00x)");
}

// 1.002x pays; two decimals would print it as 1.00x, so four are shown.
TEST(Sensitivity, ASpeedupJustAboveOneShowsThatItPays) {
  const SensitivityPlan plan = plan_sensitivity(onebit_adam(), "adam", "case");
  std::vector<double> times = uniform_times(plan, 1.10);
  set_end(times, input_index("buckets"), InputEnd::kHigh, 1.0, 1.002);
  EXPECT_EQ(sensitivity_verdict(evaluate_sensitivity(plan, times)),
            "onebit-adam pays in every case (1.0020x .. 1.10x)");
}

TEST(Sensitivity, RefusesStepTimesThatDoNotMatchThePlan) {
  const SensitivityPlan plan = plan_sensitivity(onebit_adam(), "adam", "case");
  EXPECT_THROW(evaluate_sensitivity(plan, {1.0, 1.0}), std::invalid_argument);
  std::vector<double> times = uniform_times(plan, 1.1);
  times[3] = 0;
  EXPECT_THROW(evaluate_sensitivity(plan, times), std::invalid_argument);
}

TEST(Sensitivity, CsvHoldsOneRowPerInputWithTheSpeedups) {
  const SensitivityPlan plan = plan_sensitivity(onebit_adam(), "adam", "scenario 1, small");
  std::vector<double> times = uniform_times(plan, 1.10);
  set_end(times, input_index("buckets"), InputEnd::kLow, 2.0, 1.54);
  const CsvTable csv(sensitivity_csv({evaluate_sensitivity(plan, times)}), "sensitivity.csv");
  ASSERT_EQ(csv.rows(), uncertain_inputs().size());
  const size_t b = input_index("buckets");
  EXPECT_EQ(csv.text(b, "scenario"), "scenario 1, small");  // quoted: holds a comma
  EXPECT_EQ(csv.text(b, "input"), "buckets");
  EXPECT_EQ(csv.text(b, "low_value"), "1");
  EXPECT_EQ(csv.text(b, "high_value"), "32");
  EXPECT_DOUBLE_EQ(csv.number(b, "speedup_low"), 0.77);
  EXPECT_DOUBLE_EQ(csv.number(b, "speedup_high"), 1.1);
  EXPECT_DOUBLE_EQ(csv.number(b, "expected_speedup"), 1.1);
  EXPECT_EQ(csv.text(b, "flips"), "true");
  EXPECT_EQ(csv.text(0, "flips"), "false");
  EXPECT_EQ(csv.text(b, "source"), plan.sources[b]);
  EXPECT_EQ(csv.text(b, "kind"), "choice");
  EXPECT_EQ(csv.text(0, "kind"), "measured");
  EXPECT_EQ(csv.text(b, "baseline"), "adam");
}

TEST(Sensitivity, NeedsAnOptimizerWithABaseline) {
  EXPECT_EQ(sensitivity_baseline("onebit-adam", "", "--sensitivity"), "adam");
  try {
    sensitivity_baseline("adam", "", "--sensitivity");
    FAIL() << "adam is its own baseline";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--sensitivity: optimizer adam is its own baseline"));
  }
}

TEST(Sensitivity, SweepPlansNeedTheBaselineInTheSweep) {
  sim::Scenario adam, onebit;
  onebit.optimizer = "onebit-adam";
  const std::vector<SensitivityPlan> plans = sweep_sensitivity_plans({adam, onebit}, "--x");
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_THAT(plans[0].label, HasSubstr("scenario 2"));
  EXPECT_EQ(plans[0].baseline, "adam");
  try {
    sweep_sensitivity_plans({onebit}, "--x");
    FAIL() << "no adam in the sweep";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("against adam, which sweep.optimizers lacks"));
  }
  EXPECT_THROW(sweep_sensitivity_plans({adam}, "--x"), InvalidArgument);
}

}  // namespace
}  // namespace compopt::cli
