// Symmetry timing of the step simulator (sim/round_timing.h) against the real
// collectives run in full on the proxy: same time and traffic, at 8 to 64 GPUs
// on the star, fat-tree and torus presets, for the ring and 1-bit compression.

#include "sim/round_timing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "net_models/cluster_presets.h"
#include "sim/scenario.h"
#include "tests/support/matches_full_simulation.h"

namespace compopt::sim {
namespace {

// Rounds on every rank agree with the full simulation to 1e-6 (ranks of the full run drift
// by rounding across many rounds).
void expect_same_as_full(const Scenario& s) { expect_matches_full_simulation(s, 1e-6); }

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
