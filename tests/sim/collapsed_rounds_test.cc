// The collapsed round timing (sim/collapsed_rounds.h) against the full simulation, where
// every rank runs the real collective on the whole platform (StepConfig::full_collectives):
// 1 to 4 nodes of 1, 4 and 8 GPUs, star, single-leaf fat-tree, several NICs per node, rails,
// every registered optimizer including the hierarchical scheme, with and without overlap.

#include "sim/collapsed_rounds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"
#include "sim/proxy_wire.h"
#include "sim/scenario.h"
#include "tests/support/matches_full_simulation.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

void expect_collapse_matches_full(const Scenario& s) {
  ASSERT_TRUE(collapsible(resolve_scenario(s).cluster)) << s.cluster;
  expect_matches_full_simulation(s, 1e-9);
}

TEST(CollapsedRounds, HierarchicalMatchesTheFullSimulation) {
  for (const int per_node : {1, 4, 8}) {
    for (const int nodes : {1, 2, 3, 4}) {
      if (nodes * per_node < 2) continue;
      expect_collapse_matches_full({.workload = "resnet50-imagenet",
                                    .cluster = "ethernet-a100-8",
                                    .optimizer = "birder-hierarchical",
                                    .gpus = nodes * per_node,
                                    .gpus_per_node = per_node});
    }
  }
}

TEST(CollapsedRounds, EveryOptimizerMatchesTheFullSimulation) {
  for (const std::string& optimizer : step_optimizer_names()) {
    expect_collapse_matches_full(
        {.cluster = "ethernet-a100-8", .optimizer = optimizer, .gpus = 24, .gpus_per_node = 8});
    expect_collapse_matches_full(
        {.cluster = "ethernet-v100-4", .optimizer = optimizer, .gpus = 16, .gpus_per_node = 4});
  }
}

TEST(CollapsedRounds, OverlapBucketsMatchTheFullSimulation) {
  for (const char* optimizer : {"birder-hierarchical", "onebit-adam"}) {
    expect_collapse_matches_full({.cluster = "ethernet-a100-8",
                                  .optimizer = optimizer,
                                  .gpus = 32,
                                  .overlap = OverlapMode::kOn,
                                  .buckets = 4});
  }
}

TEST(CollapsedRounds, SeveralNicsAndSingleLeafFatTreeMatchTheFullSimulation) {
  for (const char* optimizer : {"adam", "onebit-adam", "birder-hierarchical"}) {
    net::ClusterSpec two_nics = net::cluster_preset("ethernet-a100-8");
    two_nics.nics_per_node = 2;  // two NIC groups per node, no rails: node switch between them
    expect_collapse_matches_full({.cluster_spec = two_nics, .optimizer = optimizer, .gpus = 32});
    net::ClusterSpec one_leaf = net::cluster_preset("infiniband-v100-8");
    one_leaf.topology = net::Topology::kFatTree;
    one_leaf.nodes = 3;
    one_leaf.nodes_per_switch = 3;  // one leaf switch holding every node
    expect_collapse_matches_full({.cluster_spec = one_leaf, .optimizer = optimizer, .gpus = 24});
  }
}

TEST(CollapsedRounds, RailsMatchTheFullSimulation) {
  for (const char* optimizer : {"adam", "onebit-adam", "birder-hierarchical"}) {
    // 8 NICs per node on 8 rails, cross-rail traffic over the spine.
    expect_collapse_matches_full({.cluster = "dgx-h100", .optimizer = optimizer, .gpus = 32});
  }
  // Thin uplinks: cross-rail flows share them. (The flat all-to-all is left out: with flows
  // of unequal rates in a round, ranks drift apart across rounds in the full simulation, so
  // round timing itself is 2% off there, collapsed or not.)
  for (const char* optimizer : {"adam", "birder-hierarchical"}) {
    net::ClusterSpec two_rails = net::cluster_preset("dgx-h100");
    two_rails.nics_per_node = 2;
    two_rails.oversubscription = 4;
    expect_collapse_matches_full({.cluster_spec = two_rails, .optimizer = optimizer, .gpus = 24});
  }
}

TEST(CollapsedRounds, OnlyStarsOfIdenticalNodesCollapse) {
  net::ClusterSpec c = net::cluster_preset("ethernet-a100-8");
  EXPECT_TRUE(collapsible(c));
  EXPECT_EQ(mirror_cluster(c).nodes, 2);
  c.nodes = 1;
  EXPECT_EQ(mirror_cluster(c).nodes, 1);
  c.nodes = 8;
  c.topology = net::Topology::kFatTree;
  c.nodes_per_switch = 8;
  EXPECT_TRUE(collapsible(c));
  EXPECT_EQ(mirror_cluster(c).nodes_per_switch, 0);
  c.nodes_per_switch = 4;  // two leaves: node rotation moves nodes between leaves
  EXPECT_FALSE(collapsible(c));
  c.topology = net::Topology::kTorus;
  EXPECT_FALSE(collapsible(c));
  net::ClusterSpec rails = net::cluster_preset("dgx-h100");
  EXPECT_TRUE(collapsible(rails));
  rails.uplink_gbps = 800;  // a fixed spine rate does not shrink with the mirror
  EXPECT_FALSE(collapsible(rails));
  net::ClusterSpec file = net::cluster_preset("ethernet-a100-8");
  file.platform_file = "cluster.xml";
  EXPECT_FALSE(collapsible(file));
}

TEST(CollapsedRounds, RefusesAClusterThatDoesNotCollapse) {
  net::ClusterSpec torus = net::cluster_preset("ethernet-a100-8");
  torus.topology = net::Topology::kTorus;
  EXPECT_THROW(
      {
        try {
          simulate_collapsed(torus, {});
        } catch (const InvalidArgument& e) {
          EXPECT_THAT(e.what(), HasSubstr("'ethernet-a100-8' is not a star of identical nodes"));
          throw;
        }
      },
      InvalidArgument);
}

TEST(CollapsedRounds, RoundPeersCountOverTheirScope) {
  // 3 nodes x 4 GPUs: rank 6 is node 1, local 2.
  EXPECT_EQ(round_peer(RoundScope::kWorld, 7, 6, 3, 4), 1);
  EXPECT_EQ(round_peer(RoundScope::kWorld, -7, 6, 3, 4), 11);
  EXPECT_EQ(round_peer(RoundScope::kIntraNode, 3, 6, 3, 4), 5);
  EXPECT_EQ(round_peer(RoundScope::kIntraNode, -3, 6, 3, 4), 7);
  EXPECT_EQ(round_peer(RoundScope::kInterNode, 2, 6, 3, 4), 2);
  EXPECT_EQ(round_peer(RoundScope::kInterNode, -1, 6, 3, 4), 2);
}

TEST(CollapsedRounds, HierarchicalRoundsFollowTheScheme) {
  net::ClusterSpec c = net::cluster_preset("ethernet-a100-8");  // 8 nodes x 8 GPUs
  const size_t proxy = proxy_length(c.gpus());
  const auto rounds = collective_rounds(CommScheme::kCompressedHierarchical, "binary", proxy, 4, c);
  ASSERT_EQ(rounds.size(), 4u);  // reduce-scatter, all-to-all (one pattern), all-gather x 2
  EXPECT_EQ(rounds[0].scope, RoundScope::kIntraNode);
  EXPECT_EQ(rounds[0].real_bytes, 4 * proxy / 8);
  EXPECT_EQ(rounds[0].repeat, 7);
  EXPECT_EQ(rounds[1].scope, RoundScope::kInterNode);
  EXPECT_EQ(rounds[1].repeat, 7);                   // all 7 node shifts cross the NICs alike
  EXPECT_EQ(rounds[1].real_bytes, proxy / 64 / 8);  // binary: one bit per element
  EXPECT_STREQ(rounds[2].parent, "inter-node compressed allreduce");
  EXPECT_EQ(rounds[3].scope, RoundScope::kIntraNode);
  EXPECT_STREQ(rounds[3].phase, "intra-node all-gather");
}

}  // namespace
}  // namespace compopt::sim
