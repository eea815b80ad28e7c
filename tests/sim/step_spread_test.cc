// The band of a prediction (sim/step_spread.h, sim/input_ranges.h): ordered for every
// optimizer; equal to the root-sum-square of the one-at-a-time deviations, each end simulated
// here with the cluster's fields set by hand; zero wide when every input is pinned; a
// bandwidth-bound ring scaled by hand; the time to train banded like the step.

#include "sim/step_spread.h"

#include <gtest/gtest.h>

#include <cmath>

#include "net_models/cluster_presets.h"
#include "net_models/workload.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

TEST(StepSpread, LowExpectedHighAreOrderedForEveryOptimizer) {
  for (const std::string& optimizer : step_optimizer_names()) {
    Scenario s;
    s.optimizer = optimizer;
    s.gpus = 16;
    const StepConfig config = resolve_scenario(s);
    const std::vector<StageTiming> timings = simulate_step(config);
    const StepSpread spread = simulate_step_spread(config);
    for (size_t i = 0; i < timings.size(); ++i) {
      const StageBounds b = stage_bounds(timings, spread, i);
      EXPECT_LE(b.step_time_low_s, timings[i].step_time_s) << optimizer;
      EXPECT_GE(b.step_time_high_s, timings[i].step_time_s) << optimizer;
      EXPECT_LT(b.step_time_low_s, b.step_time_high_s) << optimizer;
      EXPECT_LE(b.throughput_low_samples_s, timings[i].throughput_samples_s) << optimizer;
      EXPECT_GE(b.throughput_high_samples_s, timings[i].throughput_samples_s) << optimizer;
    }
  }
}

// One input's two ends, set by hand on a copy of the config.
struct HandEnds {
  const char* input;
  void (*set)(StepConfig& c, bool low);
};

// 2 nodes x 4 V100 of ethernet-v100-4 (tcp, 50 us, 38 us per message, spread x0.849..x1.039
// between nodes, the GPU link's x0.9..x1.1), BERT-Large in fp16 on the fitted V100 curve: every
// input has a range (docs/calibration.md, "Sensitivity ranges").
const HandEnds kHandEnds[] = {
    {"inter-node bandwidth",
     [](StepConfig& c, bool low) { c.cluster.inter_node_gbps *= low ? 0.849 : 1.039; }},
    {"intra-node bandwidth",
     [](StepConfig& c, bool low) { c.cluster.intra_node_gbps *= low ? 0.9 : 1.1; }},
    {"compute utilisation",
     [](StepConfig& c, bool low) { c.cluster.gpu.max_utilization *= low ? 0.802 : 1.198; }},
    {"network latency",
     [](StepConfig& c, bool low) {
       c.cluster.inter_node_latency_s = low ? 50e-6 * 13.7 / 18.6 : 50e-6 * 34.2 / 18.6;
     }},
    {"per-message cost",
     [](StepConfig& c, bool low) {
       c.cluster.inter_node_transport.message_overhead_s = low ? 20e-6 : 44e-6;
     }},
};

TEST(StepSpread, BandIsTheRootSumSquareOfTheOneAtATimeDeviations) {
  Scenario s;
  s.cluster = "ethernet-v100-4";
  s.optimizer = "onebit-adam";
  s.gpus = 8;
  const StepConfig config = resolve_scenario(s);
  ASSERT_EQ(config.cluster.inter_node_latency_s, 50e-6);
  ASSERT_EQ(config.cluster.inter_node_transport.message_overhead_s, 38e-6);
  ASSERT_EQ(config.cluster.uplink_gbps, 0);
  const std::vector<StageTiming> expected = simulate_step(config);
  std::vector<std::vector<StageTiming>> lows, highs;
  for (const HandEnds& e : kHandEnds) {
    StepConfig low = config, high = config;
    e.set(low, true);
    e.set(high, false);
    lows.push_back(simulate_step(low));
    highs.push_back(simulate_step(high));
  }
  const StepSpread spread = simulate_step_spread(config);
  ASSERT_EQ(spread.inputs.size(), std::size(kHandEnds));
  for (size_t k = 0; k < spread.inputs.size(); ++k)
    EXPECT_EQ(spread.inputs[k].input, kHandEnds[k].input);
  for (size_t i = 0; i < expected.size(); ++i) {
    const double t0 = expected[i].step_time_s;
    double below = 0, above = 0;
    for (size_t k = 0; k < lows.size(); ++k) {
      const double a = lows[k][i].step_time_s, b = highs[k][i].step_time_s;
      below += std::pow(std::max(0.0, t0 - std::min(a, b)), 2);
      above += std::pow(std::max(0.0, std::max(a, b) - t0), 2);
    }
    // The model-error term joins each side's sum (sim/model_error.h).
    const double term = model_error().fraction * t0;
    below += term * term;
    above += term * term;
    const StageBounds bounds = stage_bounds(expected, spread, i);
    EXPECT_NEAR(bounds.step_time_low_s, t0 - std::sqrt(below), 1e-9 * t0) << expected[i].stage;
    EXPECT_NEAR(bounds.step_time_high_s, t0 + std::sqrt(above), 1e-9 * t0) << expected[i].stage;
    EXPECT_GT(above, term * term);
    EXPECT_GT(below, term * term);
  }
}

// A workload with measured passes on one node whose GPU link has no spread: every input is
// pinned, nothing is simulated again and the band is the model-error term alone.
TEST(StepSpread, EveryInputPinnedLeavesTheModelErrorTermAlone) {
  net::WorkloadSpec w = net::workload_preset("bert-large-seq128");
  w.measured_forward_s = 0.03;
  w.measured_backward_s = 0.06;
  w.measured_batch_per_gpu = 16;
  net::ClusterSpec c = net::cluster_preset("infiniband-v100-8");
  c.nodes = 1;
  c.intra_node_spread_low = 1;
  c.intra_node_spread_high = 1;
  Scenario s;
  s.workload_spec = w;
  s.cluster_spec = c;
  s.batch_per_gpu = 16;
  const StepConfig config = resolve_scenario(s);
  const std::vector<StageTiming> expected = simulate_step(config);
  const StepSpread spread = simulate_step_spread(config);
  EXPECT_TRUE(spread.inputs.empty());
  const StageBounds b = stage_bounds(expected, spread, 0);
  const double t0 = expected[0].step_time_s, q = model_error().fraction;
  EXPECT_DOUBLE_EQ(b.step_time_low_s, t0 * (1 - q));
  EXPECT_DOUBLE_EQ(b.step_time_high_s, t0 * (1 + q));
  EXPECT_NE(spread.source.find("compute utilisation: pinned: the workload's passes are measured"),
            std::string::npos)
      << spread.source;
  EXPECT_NE(spread.source.find(model_error().source), std::string::npos) << spread.source;
  // The same on 2 nodes: utilisation stays pinned, the network inputs take their ranges.
  c.nodes = 2;
  s.cluster_spec = c;
  const StepSpread two = simulate_step_spread(resolve_scenario(s));
  std::vector<std::string> names;
  for (const InputRuns& r : two.inputs) names.push_back(r.input);
  EXPECT_EQ(names, (std::vector<std::string>{"inter-node bandwidth", "network latency"}));
}

// 4 nodes of 1 GPU on a star at 10 Gbit/s, no latency, efficiency 1, spread x0.5..x2, measured
// passes (utilisation pinned): the ring sends 2 (n-1)/n x S bytes per GPU at B, so comm =
// 1.5 x S x 8 / 1e10 s, doubled at the low bandwidth and halved at the high one; the tcp
// per-message cost moves 6 messages by at most 18 us each, far inside the tolerance. Each side
// then takes the model-error term q x step by root-sum-square.
TEST(StepSpread, BandwidthBoundRingScalesByHand) {
  Scenario s;
  net::ClusterSpec c = net::cluster_preset("ethernet-v100-4");
  c.nodes = 4;
  c.gpus_per_node = 1;
  c.inter_node_gbps = 10;
  c.inter_node_efficiency = 1;
  c.inter_node_latency_s = 0;
  c.intra_node_latency_s = 0;
  c.inter_node_spread_low = 0.5;
  c.inter_node_spread_high = 2;
  s.cluster_spec = c;
  net::WorkloadSpec w = net::workload_preset("bert-large-seq128");
  w.measured_forward_s = 0.03;
  w.measured_backward_s = 0.06;
  w.measured_batch_per_gpu = 16;
  s.workload_spec = w;
  s.batch_per_gpu = 16;
  s.overlap = OverlapMode::kOff;  // the whole allreduce after backward
  const StepConfig config = resolve_scenario(s);
  const double bytes =
      static_cast<double>(config.workload.parameters) * config.workload.wire_bytes();
  const double comm = 1.5 * bytes * 8 / 10e9;
  const std::vector<StageTiming> timings = simulate_step(config);
  ASSERT_EQ(timings.size(), 1u);
  EXPECT_NEAR(timings[0].comm_s, comm, 1e-3 * comm);
  const StageBounds b = stage_bounds(timings, simulate_step_spread(config), 0);
  const double term = model_error().fraction * timings[0].step_time_s;
  EXPECT_NEAR(b.step_time_high_s - timings[0].step_time_s, std::hypot(comm, term), 2e-3 * comm);
  EXPECT_NEAR(timings[0].step_time_s - b.step_time_low_s, std::hypot(comm / 2, term), 2e-3 * comm);
}

TEST(StepSpread, TimeToTrainIsBandedLikeTheStep) {
  Scenario s;
  s.gpus = 8;
  s.training.total_steps = 1000;
  const StepConfig config = resolve_scenario(s);
  const std::vector<StageTiming> timings = simulate_step(config);
  const ScenarioTotals totals = scenario_totals(config, s.training, timings);
  const StageBounds& b = totals.bounds.at("full_precision");
  // Hours are 1000 steps of the step time: the root-sum-square scales with them.
  EXPECT_NEAR(*totals.training_low.time_to_train_h, 1000 * b.step_time_low_s / 3600, 1e-9);
  EXPECT_NEAR(*totals.training_high.time_to_train_h, 1000 * b.step_time_high_s / 3600, 1e-9);
  EXPECT_LT(*totals.training_low.time_to_train_h, *totals.training.time_to_train_h);
  EXPECT_NE(totals.spreads.source.find("iperf"), std::string::npos) << totals.spreads.source;
}

}  // namespace
}  // namespace compopt::sim
