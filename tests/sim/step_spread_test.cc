// Low / expected / high predictions (sim/step_spread.h): ordered for every optimizer, a
// bandwidth-bound ring scaled by hand, and the scenario
// totals' time to train bounded the same way.

#include "sim/step_spread.h"

#include <gtest/gtest.h>

#include "net_models/cluster_presets.h"
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
    const StepSpread spread = simulate_step_spread(config, timings);
    for (size_t i = 0; i < timings.size(); ++i) {
      const StageBounds b = stage_bounds(timings, spread, i);
      EXPECT_LE(b.step_time_low_s, timings[i].step_time_s) << optimizer;
      EXPECT_GE(b.step_time_high_s, timings[i].step_time_s) << optimizer;
      EXPECT_LT(b.step_time_low_s, b.step_time_high_s) << optimizer;  // the network matters
      EXPECT_LE(b.throughput_low_samples_s, timings[i].throughput_samples_s) << optimizer;
      EXPECT_GE(b.throughput_high_samples_s, timings[i].throughput_samples_s) << optimizer;
      // Less bandwidth: the slow run is the high step time.
      EXPECT_DOUBLE_EQ(b.step_time_high_s, spread.slow[i].step_time_s) << optimizer;
    }
  }
}

// 4 nodes of 1 GPU on a star at 10 Gbit/s, no latency, efficiency 1, spread x0.5..x2: the
// ring sends 2 (n-1)/n x S bytes per GPU at B, so comm = 1.5 x S x 8 / 1e10 s, doubled at
// the low bandwidth and halved at the high one; compute does not move.
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
  s.overlap = OverlapMode::kOff;  // the whole allreduce after backward
  const StepConfig config = resolve_scenario(s);
  const double bytes =
      static_cast<double>(config.workload.parameters) * config.workload.wire_bytes();
  const double comm = 1.5 * bytes * 8 / 10e9;
  const std::vector<StageTiming> timings = simulate_step(config);
  ASSERT_EQ(timings.size(), 1u);
  EXPECT_NEAR(timings[0].comm_s, comm, 1e-3 * comm);
  const StageBounds b = stage_bounds(timings, simulate_step_spread(config, timings), 0);
  EXPECT_NEAR(b.step_time_high_s - timings[0].step_time_s, comm, 2e-3 * comm);
  EXPECT_NEAR(timings[0].step_time_s - b.step_time_low_s, comm / 2, 2e-3 * comm);
}

TEST(StepSpread, TimeToTrainIsBoundedLikeTheStep) {
  Scenario s;
  s.gpus = 8;
  s.training.total_steps = 1000;
  const StepConfig config = resolve_scenario(s);
  const std::vector<StageTiming> timings = simulate_step(config);
  const ScenarioTotals totals = scenario_totals(config, s.training, timings);
  const StageBounds& b = totals.bounds.at("full_precision");
  EXPECT_NEAR(*totals.training_low.time_to_train_h, 1000 * b.step_time_low_s / 3600, 1e-9);
  EXPECT_NEAR(*totals.training_high.time_to_train_h, 1000 * b.step_time_high_s / 3600, 1e-9);
  EXPECT_LT(*totals.training_low.time_to_train_h, *totals.training.time_to_train_h);
  EXPECT_NE(totals.spreads.source.find("iperf"), std::string::npos) << totals.spreads.source;
}

}  // namespace
}  // namespace compopt::sim
