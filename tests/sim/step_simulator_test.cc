// The step simulator: calibration targets on the 13 published rows, the
// scaled proxy charging exactly the modeled bytes, and bad scenarios.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"
#include "net_models/calibration_rows.h"
#include "sim/proxy_wire.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

TEST(StepSimulator, CalibrationMeetsTheTargetsOnEveryPublishedRow) {
  for (const net::ProfileRow& row : net::onebit_adam_profile_rows()) {
    Scenario s;
    s.cluster = row.cluster;
    s.gpus = row.gpus;
    s.batch_per_gpu = row.batch_per_gpu;
    s.grad_accum = row.grad_accum;
    s.implementation = "deepspeed-2020";  // Table 1 profiles DeepSpeed's engine of the time
    const StageTiming t = simulate_step(resolve_scenario(s)).front();
    EXPECT_LE(std::abs(1e3 * t.comm_s - row.allreduce_ms), 0.25 * row.allreduce_ms)
        << row.cluster << " " << row.gpus;
    EXPECT_LE(std::abs(t.allreduce_pct() - row.allreduce_pct), 8.0)
        << row.cluster << " " << row.gpus;
  }
}

// Torus and dragonfly fabrics of one, two and three nodes: a torus dimension of extent 1 has
// no links (SimGrid used to abort on a node wired to itself) and one node needs no fabric. Two
// nodes joined by a torus dimension of 2 are as fast as a star: two parallel links, one used
// per direction of the ring.
TEST(StepSimulator, SmallTorusAndDragonflyFabricsSimulate) {
  for (const char* topology : {"torus", "dragonfly"}) {
    for (int gpus : {8, 16, 24}) {
      Scenario s;
      s.cluster = "infiniband-v100-8";
      s.topology = topology;
      s.gpus = gpus;
      const double comm = simulate_step(resolve_scenario(s)).front().comm_s;
      EXPECT_TRUE(std::isfinite(comm) && comm > 0) << topology << " " << gpus;
    }
  }
  Scenario torus, star;
  torus.cluster = star.cluster = "infiniband-v100-8";
  torus.gpus = star.gpus = 16;
  torus.topology = "torus";
  star.topology = "star";
  EXPECT_NEAR(simulate_step(resolve_scenario(torus)).front().comm_s,
              simulate_step(resolve_scenario(star)).front().comm_s, 1e-3);
}

TEST(StepSimulator, ProxyChargesTheModeledBytes) {
  // Ring fp16 over 16 GPUs: each GPU sends 2(n-1)/n * 2 bytes * d.
  Scenario s;
  s.gpus = 16;
  const double d = 340e6, n = 16;
  const StageTiming ring = simulate_step(resolve_scenario(s)).front();
  EXPECT_NEAR(ring.bytes_per_gpu, 2 * (n - 1) / n * 2 * d, 1e-6 * d);
  // 1-bit Adam compression: all-to-all of (n-1) d/(8n) bytes, all-gather of
  // (n-1) (d/(8n) + 4) bytes and of (n-1) 4-byte scales.
  s.optimizer = "onebit-adam";
  const StageTiming compressed = simulate_step(resolve_scenario(s)).back();
  const double padded = std::ceil(d / (8 * n)) * 8 * n;
  const double expected =
      (n - 1) * padded / (8 * n) + (n - 1) * (padded / (8 * n) + 4) + (n - 1) * 4;
  EXPECT_NEAR(compressed.bytes_per_gpu, expected, 1e-6 * expected);
  EXPECT_LT(compressed.comm_s, ring.comm_s / 4);
}

TEST(StepSimulator, HierarchicalBirderSendsLessAcrossNodesThanFlat) {
  Scenario s;
  s.workload = "resnet50-imagenet";
  s.cluster = "ethernet-a100-8";
  s.gpus = 32;
  s.optimizer = "birder";
  const StageTiming flat = simulate_step(resolve_scenario(s)).front();
  s.optimizer = "birder-hierarchical";
  const StageTiming hierarchical = simulate_step(resolve_scenario(s)).front();
  // Flat: every GPU sends ~2 d/8 across nodes; hierarchical: each node ~2 d/8.
  EXPECT_GT(flat.inter_node_bytes, 4 * hierarchical.inter_node_bytes);
  EXPECT_LT(hierarchical.comm_s, flat.comm_s);
}

TEST(StepSimulator, OverlapHidesCommunicationBehindBackward) {
  Scenario s;
  s.workload = "resnet50-imagenet";
  s.cluster = "ethernet-a100-8";
  s.gpus = 8;
  s.optimizer = "sgdm";
  s.overlap = OverlapMode::kOff;
  const StageTiming serial = simulate_step(resolve_scenario(s)).front();
  s.overlap = OverlapMode::kOn;
  const StageTiming overlapped = simulate_step(resolve_scenario(s)).front();
  EXPECT_LT(overlapped.comm_s, serial.comm_s);
  EXPECT_LT(overlapped.step_time_s, serial.step_time_s);
}

TEST(StepSimulator, EveryRegisteredOptimizerSimulatesItsDeclaredStages) {
  Scenario s;
  s.gpus = 8;
  for (const auto& entry : optimizer_registry().entries()) {
    s.optimizer = entry.name;
    const std::vector<StageTiming> rows = simulate_step(resolve_scenario(s));
    ASSERT_EQ(rows.size(), entry.stages.size()) << entry.name;
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].stage, entry.stages[i].name) << entry.name;
      // A stage sent behind the next inner steps may hide entirely on one node.
      if (entry.stages[i].overlap == StageOverlap::kBehindInnerSteps) {
        EXPECT_GE(rows[i].comm_s, 0.0) << entry.name;
      } else {
        EXPECT_GT(rows[i].comm_s, 0.0) << entry.name;
      }
      // Only stages with a compressor pay the compression cost (DeMo's all-gather has none).
      EXPECT_EQ(rows[i].compress_s > 0, !entry.stages[i].compressor.empty()) << entry.name;
    }
  }
  EXPECT_EQ(step_optimizer_names(), optimizer_registry().names());
}

TEST(StepSimulator, AnAliasSimulatesExactlyAsItsCanonicalName) {
  Scenario s;
  s.gpus = 8;
  s.optimizer = "sgdm";
  const sim::StepConfig alias = resolve_scenario(s);
  EXPECT_EQ(alias.optimizer, "momentum-sgd");
  const StageTiming a = simulate_step(alias).front();
  s.optimizer = "momentum-sgd";
  const StageTiming b = simulate_step(resolve_scenario(s)).front();
  EXPECT_EQ(a.stage, "full_precision");
  // SimGrid's clock runs on across simulations: the same step starts at another absolute
  // time, so per-message sleeps round differently in the last bits.
  EXPECT_NEAR(a.step_time_s, b.step_time_s, 1e-12 * b.step_time_s);
  EXPECT_EQ(a.bytes_per_gpu, b.bytes_per_gpu);
  // Momentum SGD and Adam send the same ring allreduce.
  s.optimizer = "adam";
  EXPECT_NEAR(simulate_step(resolve_scenario(s)).front().comm_s, a.comm_s, 1e-9 * a.comm_s);
}

TEST(StepSimulator, BadScenariosNameTheValue) {
  auto error_of = [](Scenario s) -> std::string {
    try {
      resolve_scenario(s);
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "no InvalidArgument";
  };
  Scenario s;
  s.optimizer = "sgd-turbo";
  EXPECT_THAT(error_of(s), ::testing::HasSubstr("unknown optimizer 'sgd-turbo'"));
  s = Scenario{};
  s.gpus = 10;
  EXPECT_THAT(error_of(s), ::testing::HasSubstr("gpus = 10 does not divide"));
  s = Scenario{};
  s.inter_node_gbps = -1;
  EXPECT_THAT(error_of(s), ::testing::HasSubstr("inter_node_gbps = -1"));
  s = Scenario{};
  s.cluster = "nope";
  EXPECT_THAT(error_of(s), ::testing::HasSubstr("unknown cluster preset 'nope'"));
}

TEST(ProxyWire, ProxyLengthIsAMultipleOf8nWithRoomForChunks) {
  for (int n : {1, 7, 64, 1024}) {
    const size_t p = proxy_length(n);
    EXPECT_EQ(p % (8 * static_cast<size_t>(n)), 0u);
    EXPECT_GE(p / static_cast<size_t>(n), 64u);
  }
}

}  // namespace
}  // namespace compopt::sim

namespace compopt::sim {
namespace {

std::vector<StageTiming> rows_of(const std::string& optimizer, OverlapMode overlap) {
  Scenario s;
  s.gpus = 8;
  s.optimizer = optimizer;
  s.overlap = overlap;
  s.buckets = 4;
  return simulate_step(resolve_scenario(s));
}

TEST(StepSimulator, AutoOverlapBucketsTheGradientAllreduceOnly) {
  // adam's gradient allreduce is bucketed behind backward (DDP), as with --overlap on.
  const StageTiming adam_auto = rows_of("adam", OverlapMode::kAuto).front();
  const double adam_on = rows_of("adam", OverlapMode::kOn).front().comm_s;
  EXPECT_NEAR(adam_auto.comm_s, adam_on, 1e-9 * adam_on);
  EXPECT_LT(adam_auto.comm_s, rows_of("adam", OverlapMode::kOff).front().comm_s);
  // 1-bit Adam: the warmup allreduces the gradient (bucketed), the compression stage sends the
  // momentum of the optimizer step (after backward), as with --overlap off.
  const auto onebit = rows_of("onebit-adam", OverlapMode::kAuto);
  const auto onebit_on = rows_of("onebit-adam", OverlapMode::kOn);
  const auto onebit_off = rows_of("onebit-adam", OverlapMode::kOff);
  EXPECT_NEAR(onebit[0].comm_s, onebit_on[0].comm_s, 1e-9 * onebit_on[0].comm_s);
  EXPECT_NEAR(onebit[1].comm_s, onebit_off[1].comm_s, 1e-9 * onebit_off[1].comm_s);
  EXPECT_LT(onebit_on[1].comm_s, onebit[1].comm_s);
  // Birder's compressed update is formed in the optimizer step too.
  const double birder_off = rows_of("birder", OverlapMode::kOff).front().comm_s;
  EXPECT_NEAR(rows_of("birder", OverlapMode::kAuto).front().comm_s, birder_off, 1e-9 * birder_off);
}

TEST(StepSimulator, LambIsChargedTheKernelItsProfileRuns) {
  // LAMB's step is the profile's LAMB kernel, not Adam's scaled by 68/48: under ddp DeepSpeed's
  // FusedLamb on fp32 state (part 1 reads g, p, m, v and writes m, v; part 3 reads p, m, v and
  // writes p: 10 x 4 = 40 B), under deepspeed-2020 the engine's fp16 legacy path around it
  // (flatten 4 + fp32 norm 10 + kernel with fp16 g and p_copy 40 + fp32-to-fp16 copy 6 = 60 B),
  // against 178.07 x 68/48 = 252.3 B before. bert-large (340 M) on the V100's 900 GB/s.
  const StepConfig c = resolve_scenario(Scenario{.gpus = 8});
  const double n = static_cast<double>(c.workload.parameters);
  const double hbm = c.cluster.gpu.hbm_gbps * 1e9;
  const StageTiming adam = rows_of("adam", OverlapMode::kOff).front();
  const StageTiming lamb = rows_of("lamb", OverlapMode::kOff).front();
  EXPECT_NEAR(adam.step_s, n * 28 / hbm, 1e-12);
  EXPECT_NEAR(lamb.step_s, n * 40 / hbm, 1e-12);
  EXPECT_NEAR(lamb.step_time_s - adam.step_time_s, n * 12 / hbm, 1e-9);
  EXPECT_NEAR(lamb.comm_s, adam.comm_s, 1e-9 * adam.comm_s);
  // 1-bit LAMB's warmup is LAMB's step; its compression stage is charged as many bytes.
  for (const StageTiming& t : rows_of("onebit-lamb", OverlapMode::kOff))
    EXPECT_NEAR(t.step_s, lamb.step_s, 1e-12) << t.stage;
  // 1-bit Adam keeps Adam's step.
  for (const StageTiming& t : rows_of("onebit-adam", OverlapMode::kOff))
    EXPECT_NEAR(t.step_s, adam.step_s, 1e-12) << t.stage;
  Scenario deepspeed{.optimizer = "lamb", .gpus = 8};
  deepspeed.implementation = "deepspeed-2020";
  EXPECT_NEAR(simulate_step(resolve_scenario(deepspeed)).front().step_s, n * 60 / hbm, 1e-12);
}

}  // namespace
}  // namespace compopt::sim

namespace compopt::sim {
namespace {

TEST(StepSimulator, OnebitAdamAndBirderCompressionDifferAsTheirKernelsBytes) {
  // bert-large on 8 V100s (2 nodes x 4): Birder's binary on 8 GPUs is the reference itself,
  // parameters x 148 B / 900 GB/s; 1-bit Adam's sign moves (20.125 + 17.125/8 + 4.125) bytes
  // where binary moves (12.125 + 9.125/8 + 4.125).
  const StepConfig c = resolve_scenario(Scenario{.gpus = 8});
  const double reference = static_cast<double>(c.workload.parameters) *
                           c.workload.compress_bytes_per_element / (c.cluster.gpu.hbm_gbps * 1e9);
  const double birder = rows_of("birder", OverlapMode::kOff).front().compress_s;
  const double onebit = rows_of("onebit-adam", OverlapMode::kOff)[1].compress_s;
  EXPECT_NEAR(birder, reference, 1e-12);
  EXPECT_NEAR(onebit / birder, (20.125 + 17.125 / 8 + 4.125) / (12.125 + 9.125 / 8 + 4.125), 1e-12);
  // Hierarchical: each GPU encodes its quarter, the 2 nodes share the server step.
  const double hierarchical = rows_of("birder-hierarchical", OverlapMode::kOff).front().compress_s;
  EXPECT_NEAR(hierarchical / reference,
              (12.125 / 4 + (8.125 + 2.0 / 8) / 2 / 4 + 4.125) / (12.125 + 9.125 / 8 + 4.125),
              1e-12);
  EXPECT_EQ(rows_of("onebit-adam", OverlapMode::kOff)[0].compress_s, 0.0);  // warmup: ring
}

// Local SGD averages the parameters once every tau = 4 steps (its registry period): a step is
// charged a quarter of the same ring allreduce momentum SGD runs after backward, time and bytes.
TEST(StepSimulator, APeriodicStageIsChargedItsCollectiveOverThePeriod) {
  Scenario s;
  s.gpus = 16;
  s.overlap = OverlapMode::kOff;
  s.optimizer = "momentum-sgd";
  const StageTiming every_step = simulate_step(resolve_scenario(s)).front();
  s.optimizer = "local-sgd";
  const StageTiming local = simulate_step(resolve_scenario(s)).front();
  EXPECT_DOUBLE_EQ(local.comm_s, every_step.comm_s / 4);
  EXPECT_DOUBLE_EQ(local.bytes_per_gpu, every_step.bytes_per_gpu / 4);
  EXPECT_EQ(local.algorithm, every_step.algorithm + " (every 4 steps)");
}

// Local momentum SGD averages its momentum with the parameters: two fp32 vectors every tau
// steps where local SGD sends one vector in the workload's wire format.
TEST(StepSimulator, LocalMomentumSgdSendsParametersAndMomentumInFp32) {
  Scenario s;
  s.gpus = 16;
  s.overlap = OverlapMode::kOff;
  s.optimizer = "local-sgd";
  const StepConfig config = resolve_scenario(s);
  const StageTiming parameters = simulate_step(config).front();
  s.optimizer = "local-momentum-sgd";
  const StageTiming both = simulate_step(resolve_scenario(s)).front();
  const double ratio = 2.0 * 4.0 / config.workload.wire_bytes();
  EXPECT_NEAR(both.bytes_per_gpu / parameters.bytes_per_gpu, ratio, 1e-3 * ratio);
  EXPECT_THAT(both.algorithm, ::testing::HasSubstr("2 of the vector; every 4 steps"));
}

// Streaming DiLoCo sends one fragment in F = 5 every H/F = 10 steps, behind tau = 1 inner step:
// with overlap off a step pays a tenth of the collective; with its own overlap only what
// outlasts one step of forward, backward and optimizer step, over 10.
TEST(StepSimulator, AFragmentSentBehindInnerStepsExposesOnlyWhatOutlastsThem) {
  Scenario s;
  s.gpus = 64;
  s.optimizer = "streaming-diloco";
  s.overlap = OverlapMode::kOff;
  const StageTiming off = simulate_step(resolve_scenario(s)).front();
  s.overlap = OverlapMode::kAuto;
  const StageTiming behind = simulate_step(resolve_scenario(s)).front();
  const double collective = 10 * off.comm_s;
  const double inner = behind.forward_s + behind.backward_compute_s + behind.step_s;
  ASSERT_GT(collective, inner);  // the case where part of it stays exposed
  EXPECT_NEAR(behind.comm_s, (collective - inner) / 10, 1e-12);
  EXPECT_EQ(off.bytes_per_gpu, behind.bytes_per_gpu);
  EXPECT_THAT(behind.algorithm, ::testing::HasSubstr("every 10 steps"));
}

// DeMo's message at the default keys: 32 fp32 values and uint16 indices per 64 x 64 block,
// 32 * 6 / (4096 * 4) of the fp32 vector, all-gathered: each GPU sends the n - 1 messages of
// the ring all-gather, whatever the gradient's wire format (BERT-Large's is fp16).
TEST(StepSimulator, AnAllGatherSendsEachRanksMessageToTheOthers) {
  Scenario s;
  s.gpus = 16;
  s.optimizer = "demo";
  const StageTiming t = simulate_step(resolve_scenario(s)).front();
  const double d = 340e6, n = 16, message = 32.0 * 6 / (4096 * 4) * d * 4;
  EXPECT_NEAR(t.bytes_per_gpu, (n - 1) * message, 1e-6 * (n - 1) * message);
  EXPECT_THAT(t.algorithm, ::testing::StartsWith("ring (all-gather"));
}

// PowerSGD's rank-1 factors of BERT-Large's 398 tensors taken as square: 2r / sqrt(d / 398) of
// the gradient, ring-allreduced in its fp16 wire format.
TEST(StepSimulator, LowRankFactorsAreSizedFromTheWorkloadsTensors) {
  Scenario s;
  s.gpus = 16;
  s.optimizer = "powersgd";
  const std::vector<StageTiming> rows = simulate_step(resolve_scenario(s));
  const double d = 340e6, n = 16, factors = d * 2.0 / std::sqrt(d / 398);
  EXPECT_NEAR(rows.back().bytes_per_gpu, 2 * (n - 1) / n * 2 * factors, 1e-3 * 2 * factors);
  EXPECT_NEAR(rows.front().bytes_per_gpu, 2 * (n - 1) / n * 2 * d, 1e-6 * d);
}

}  // namespace
}  // namespace compopt::sim
