// How the step simulator picks the uncompressed allreduce by NCCL version
// (sim/allreduce_selection.h): NCCL 2.4's tree threshold against values worked out by hand
// from its formula, the rule each version takes, and the two paper clusters' choices.

#include "sim/allreduce_selection.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"

namespace compopt::sim {
namespace {

net::ClusterSpec cluster(int nodes, int gpus_per_node, net::IntraNodeFabric fabric, int nics = 1) {
  net::ClusterSpec c;
  c.name = "hand";
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.intra_node_fabric = fabric;
  c.nics_per_node = nics;
  c.rail_optimized = nics > 1;
  return c;
}

constexpr auto kNvlink = net::IntraNodeFabric::kNvlink;
constexpr auto kPcie = net::IntraNodeFabric::kPcie;

// threshold = ring_bw x tree_bw / (ring_bw - tree_bw) x (ring_lat - tree_lat), bytes/us and us.
TEST(AllreduceSelection, Nccl24TreeThresholdByHand) {
  // 4 nodes x 8 NVLink, one channel: bw 5000 and 3750; lat 6 x 31 = 186, 15 x 2 + 4 x 7 = 58.
  EXPECT_DOUBLE_EQ(nccl24_tree_threshold_bytes(cluster(4, 8, kNvlink)), 15000.0 * 128);
  // 8 nodes: lat 6 x 63 = 378 and 15 x 3 + 28 = 73.
  EXPECT_DOUBLE_EQ(nccl24_tree_threshold_bytes(cluster(8, 8, kNvlink)), 15000.0 * 305);
  // Four channels (4 NICs): bw 20000 and 15000.
  EXPECT_DOUBLE_EQ(nccl24_tree_threshold_bytes(cluster(4, 8, kNvlink, 4)), 60000.0 * 128);
  // PCIe, 2 nodes x 4: bw 5000 and 10000/3; lat 42 and 15 + 12 = 27.
  EXPECT_NEAR(nccl24_tree_threshold_bytes(cluster(2, 4, kPcie)), 10000.0 * 15, 1e-6);
  // Two NVLink nodes: the tree's estimate doubles past the ring's, so every size goes by tree.
  EXPECT_TRUE(std::isinf(nccl24_tree_threshold_bytes(cluster(2, 8, kNvlink))));
  // One node, or a ring no slower in latency (2 x 1 GPU: 6 us against 15): never the tree.
  EXPECT_EQ(nccl24_tree_threshold_bytes(cluster(1, 8, kNvlink)), 0.0);
  EXPECT_EQ(nccl24_tree_threshold_bytes(cluster(2, 1, kPcie)), 0.0);
}

TEST(AllreduceSelection, EachVersionTakesItsRule) {
  net::ClusterSpec c = cluster(64, 1, kNvlink);
  for (const auto& [version, rule] : {std::pair{"2.3.7", "ring only"},
                                      {"2.4", "tree threshold"},
                                      {"2.4.8", "tree threshold"},
                                      {"2.5", "tuning model"},
                                      {"2.10.3", "tuning model"},
                                      {"", "tuning model"}}) {
    c.nccl_version = version;
    EXPECT_EQ(allreduce_selection(c).name, rule) << version;
  }
  c.nccl_version = "two";
  EXPECT_THROW(allreduce_selection(c), InvalidArgument);
}

TEST(AllreduceSelection, ChoicesFollowTheRule) {
  net::ClusterSpec c = cluster(4, 8, kNvlink);
  c.nccl_version = "2.4.8";
  EXPECT_EQ(choose_allreduce_algorithm("auto", 1.92e6, c).name, "tree");  // at the threshold
  EXPECT_EQ(choose_allreduce_algorithm("auto", 1.93e6, c).name, "ring");
  c.nccl_version = "2.3";
  EXPECT_EQ(choose_allreduce_algorithm("auto", 1e3, c).name, "ring");  // no tree before 2.4
  EXPECT_EQ(choose_allreduce_algorithm("tree", 1e3, c).name, "tree");  // unless forced
  c.nccl_version = "2.4";
  c.platform_file = "cluster.xml";  // the tree does not run on a platform file
  EXPECT_EQ(choose_allreduce_algorithm("auto", 1e3, c).name, "ring");
}

// BERT-Large's 680 MB fp16 gradient on the paper clusters (docs/calibration.md): NCCL 2.4 runs
// the tree on two NVLink nodes and the ring from four on, and the ring on PCIe nodes.
TEST(AllreduceSelection, PaperClustersTakeTreeOnlyOnTwoNvlinkNodes) {
  constexpr double kBytes = 680e6;
  const net::ClusterSpec ib = net::cluster_preset("infiniband-v100-8");
  EXPECT_EQ(choose_allreduce_algorithm("auto", kBytes, net::with_gpus(ib, 16)).name, "tree");
  EXPECT_EQ(choose_allreduce_algorithm("auto", kBytes, net::with_gpus(ib, 32)).name, "ring");
  EXPECT_EQ(choose_allreduce_algorithm("auto", kBytes, net::with_gpus(ib, 64)).name, "ring");
  const net::ClusterSpec eth = net::cluster_preset("ethernet-v100-4");
  EXPECT_EQ(choose_allreduce_algorithm("auto", kBytes, net::with_gpus(eth, 8)).name, "ring");
}

}  // namespace
}  // namespace compopt::sim
