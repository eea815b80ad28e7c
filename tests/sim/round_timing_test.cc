// Symmetry timing of the step simulator (sim/round_timing.h) against the real
// collectives run in full on the proxy: same time and traffic, at 8 to 64 GPUs
// on the star, fat-tree and torus presets, for the ring and 1-bit compression.

#include "sim/round_timing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "net_models/cluster_presets.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

void expect_same_as_full(const Scenario& s) {
  StepConfig fast = resolve_scenario(s);
  StepConfig full = fast;
  full.full_collectives = true;
  const auto a = simulate_step(fast), b = simulate_step(full);
  ASSERT_EQ(a.size(), b.size());
  // Rounds charge each round's per-message cost before its flows start; the real flat
  // all-to-all posts its next message while the last one is still on the wire, so with a
  // per-message transport cost the two may differ by up to one cost per round (n - 1 rounds,
  // per bucket with overlap). Without one they agree to rounding.
  const double alpha = fast.cluster.inter_node_transport.message_overhead_s;
  const double buckets = s.overlap == OverlapMode::kOn ? std::max(1, s.buckets) : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string what = s.cluster + " " + s.optimizer + " " + a[i].stage + " " +
                             std::to_string(s.gpus) + " overlap " + overlap_mode_name(s.overlap);
    const double slack =
        a[i].algorithm == "compressed-flat" ? (fast.cluster.gpus() - 1) * alpha * buckets : 0.0;
    EXPECT_NEAR(a[i].comm_s, b[i].comm_s, 1e-6 * b[i].comm_s + slack) << what;
    EXPECT_NEAR(a[i].bytes_per_gpu, b[i].bytes_per_gpu, 1e-9 * b[i].bytes_per_gpu) << what;
    EXPECT_NEAR(a[i].inter_node_bytes, b[i].inter_node_bytes, 1e-9 * b[i].inter_node_bytes) << what;
  }
}

TEST(RoundTiming, StarMatchesTheFullSimulation) {
  for (int gpus : {4, 8, 16, 32, 64}) {
    for (const char* optimizer : {"adam", "onebit-adam", "birder"}) {
      Scenario s;
      s.gpus = gpus;
      s.optimizer = optimizer;
      expect_same_as_full(s);
    }
  }
}

TEST(RoundTiming, OtherTopologiesMatchTheFullSimulation) {
  for (const char* topology : {"fat-tree", "torus"}) {
    Scenario s;
    s.cluster = "infiniband-v100-8";
    s.topology = topology;
    s.gpus = 32;
    s.optimizer = "onebit-adam";
    expect_same_as_full(s);
  }
}

TEST(RoundTiming, RailsMatchTheFullSimulation) {
  for (const char* optimizer : {"adam", "onebit-adam"}) {
    Scenario s;
    s.cluster = "dgx-h100";  // 8 NICs per node on 8 rails, cross-rail traffic over the spine
    s.gpus = 32;
    s.optimizer = optimizer;
    expect_same_as_full(s);
    net::ClusterSpec two_nics = net::cluster_preset("dgx-h100");
    two_nics.nics_per_node = 2;
    two_nics.topology = net::Topology::kFatTree;
    two_nics.nodes_per_switch = 2;
    two_nics.oversubscription = 2;
    s.cluster_spec = two_nics;
    expect_same_as_full(s);
  }
}

TEST(RoundTiming, OverlapBucketsMatchTheFullSimulation) {
  Scenario s;
  s.gpus = 16;
  s.optimizer = "onebit-adam";
  s.overlap = OverlapMode::kOn;
  s.buckets = 8;
  expect_same_as_full(s);
}

TEST(RoundTiming, StarMergesAlltoallRoundsWithTheSamePattern) {
  net::ClusterSpec cluster = resolve_scenario(Scenario{.gpus = 64}).cluster;
  // 63 all-to-all shifts on 16 nodes x 4 GPUs collapse to the 4 local-shift
  // patterns crossing nodes plus the 3 partly intra-node shifts and the
  // wrap-around ones; every shift is still counted once.
  const auto rounds = collective_rounds(CommScheme::kCompressedFlat, "sign", 4096, 2, cluster);
  double alltoall = 0;
  for (size_t i = 0; i + 2 < rounds.size(); ++i) alltoall += rounds[i].repeat;
  EXPECT_EQ(alltoall, 63);
  EXPECT_LT(rounds.size(), 16u);
  const auto ring = collective_rounds(CommScheme::kRing, "", 4096, 2, cluster);
  ASSERT_EQ(ring.size(), 2u);
  for (const ShiftRound& half : ring) {
    EXPECT_EQ(half.repeat, 63);
    EXPECT_EQ(half.real_bytes, 2u * 4096 / 64);
  }
  EXPECT_STREQ(ring[0].phase, "reduce-scatter");
  EXPECT_STREQ(ring[1].phase, "all-gather");
}

}  // namespace
}  // namespace compopt::sim
