// The uncompressed allreduce algorithms (sim/allreduce_algorithm.h): the ring's channels
// and NCCL's double binary tree timed as flows against hand-derived times (CM02, factors
// 1, latencies of 1 ns, GPU links far faster than the NICs, so a round lasts the bytes on
// the busiest NIC direction over its rate), NCCL's tuning figures and selection, the
// override and its bad values.

#include "sim/allreduce_algorithm.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"
#include "net_models/workload.h"
#include "sim/allreduce_patterns.h"
#include "sim/nccl_tuning.h"
#include "sim/step_simulator.h"

namespace compopt::sim {
namespace {

constexpr double kBytes = 1e9;            // gradient bytes per GPU
constexpr double kNicBytesPerS = 12.5e9;  // 100 Gbit/s

net::ClusterSpec cluster(int nodes, int gpus_per_node, int nics) {
  net::ClusterSpec c;
  c.name = "hand";
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.nics_per_node = nics;
  c.rail_optimized = nics > 1;
  c.intra_node_gbps = 1e5;
  c.intra_node_latency_s = 1e-9;
  c.inter_node_gbps = 100;
  c.inter_node_latency_s = 1e-9;
  return c;
}

// The rounds' simulated time.
double flow_seconds(const net::ClusterSpec& c, const std::vector<FlowRound>& rounds) {
  return simulate_flow_jobs(c, {rounds}).front().seconds;
}

TEST(AllreduceAlgorithm, BinaryTreeParentsFollowTheInOrderTree) {
  // 4 nodes: 0 -> 2 -> {1, 3}; 5 nodes: 4 would go to 8, so it goes to 0.
  EXPECT_EQ(binary_tree_parent(0, 4), -1);
  EXPECT_EQ(binary_tree_parent(1, 4), 2);
  EXPECT_EQ(binary_tree_parent(2, 4), 0);
  EXPECT_EQ(binary_tree_parent(3, 4), 2);
  EXPECT_EQ(binary_tree_parent(4, 5), 0);
  EXPECT_EQ(binary_tree_parent(1, 2), 0);
}

TEST(AllreduceAlgorithm, ChannelRingsCrossNodesOnOneRailEachAndCoverEveryNic) {
  const net::ClusterSpec c = cluster(2, 8, 8);
  EXPECT_EQ(allreduce_channels(c), 8);
  std::set<int> rails;
  for (const std::vector<int>& ring : channel_rings(c, 8)) {
    ASSERT_EQ(ring.size(), 16u);
    EXPECT_EQ(std::set<int>(ring.begin(), ring.end()).size(), 16u) << "a ring visits every GPU";
    for (size_t k = 0; k < ring.size(); ++k) {
      const int a = ring[k], b = ring[(k + 1) % ring.size()];
      if (a / 8 == b / 8) continue;
      EXPECT_EQ(a % 8, b % 8) << "inter-node hop " << a << " -> " << b;
      rails.insert(a % 8);
    }
  }
  EXPECT_EQ(rails.size(), 8u);
  EXPECT_EQ(allreduce_channels(cluster(1, 8, 8)), 1);
  EXPECT_EQ(allreduce_channels(cluster(4, 8, 1)), 1);
  EXPECT_EQ(allreduce_channels(cluster(4, 2, 8)), 2);
}

TEST(AllreduceAlgorithm, RingChannelsSplitTheRoundsOverTheNics) {
  // n = 4 GPUs on 2 nodes: 2(n-1) = 6 rounds of S/4 per ring step through each node's NIC.
  const double one_channel = 6 * (kBytes / 4) / kNicBytesPerS;  // 0.12 s
  const net::ClusterSpec one_nic = cluster(2, 2, 1), two_nics = cluster(2, 2, 2);
  EXPECT_NEAR(flow_seconds(one_nic, ring_channel_rounds(kBytes, one_nic, 1)), one_channel,
              1e-3 * one_channel);
  // Two channels on two rails: each NIC carries one S/8 flow per round.
  EXPECT_NEAR(flow_seconds(two_nics, ring_channel_rounds(kBytes, two_nics, 2)), one_channel / 2,
              1e-3 * one_channel);
  // Two channels on one NIC: two flows of S/8 per peer share it, no faster than one ring.
  EXPECT_NEAR(flow_seconds(one_nic, ring_channel_rounds(kBytes, one_nic, 2)), one_channel,
              1e-3 * one_channel);
}

TEST(AllreduceAlgorithm, DoubleTreeMovesSPerNicOnTwoNodesAndTwiceThatWhenInner) {
  // 2 nodes: each tree sends S/2 up and S/2 down over the one inter-node edge, so each NIC
  // direction carries S, where a ring of 8 GPUs carries 2 x 7/8 x S.
  const net::ClusterSpec two = cluster(2, 4, 1);
  EXPECT_NEAR(flow_seconds(two, double_tree_rounds(kBytes, two, 1)), kBytes / kNicBytesPerS,
              1e-3 * kBytes / kNicBytesPerS);
  EXPECT_NEAR(flow_seconds(two, ring_channel_rounds(kBytes, two, 1)), 1.75 * kBytes / kNicBytesPerS,
              1e-3 * kBytes / kNicBytesPerS);
  // 4 nodes: a node inner in one tree (2 children, 1 parent: 3 x S/2) is a leaf in the
  // other (S/2): 2S per NIC direction (SimGrid's sharing of the 4 flows: within 0.3%).
  const net::ClusterSpec four = cluster(4, 2, 1);
  EXPECT_NEAR(flow_seconds(four, double_tree_rounds(kBytes, four, 1)), 2 * kBytes / kNicBytesPerS,
              6e-3 * kBytes / kNicBytesPerS);
}

TEST(AllreduceAlgorithm, NcclLatenciesFromTheTuningTables) {
  const net::ClusterSpec c = cluster(2, 8, 1);  // NVLink, n = 16, N = 2
  // Ring: 8.4 + (30 - 2) x 3.4 + 2 x 9.6 = 122.8 us; x 1.9 from 16/16 x 64 KiB on.
  EXPECT_NEAR(nccl_ring_latency_s(1024, c), 122.8e-6, 1e-9);
  EXPECT_NEAR(nccl_ring_latency_s(65536, c), 1.9 * 122.8e-6, 1e-9);
  // Tree: 2 x (7 x 28 + 1 x 50) = 492 us; PCIe on 16 nodes: 2 x (7 x 28 + 4 x 50).
  EXPECT_NEAR(nccl_tree_latency_s(1024, c), 492e-6, 1e-9);
  net::ClusterSpec pcie = cluster(16, 8, 1);
  pcie.intra_node_fabric = net::IntraNodeFabric::kPcie;
  EXPECT_NEAR(nccl_tree_latency_s(1024, pcie), 792e-6, 1e-9);
  // Ring on PCIe, 1 node of 4: 8.4 + 6 x 5.7, no network steps, no plateau.
  pcie.nodes = 1;
  pcie.gpus_per_node = 4;
  EXPECT_NEAR(nccl_ring_latency_s(1e9, pcie), 42.6e-6, 1e-9);
}

TEST(AllreduceAlgorithm, NcclBandwidthsFromTheBusBandwidth) {
  // dgx-a100: 8 x 200 Gbit/s NICs = 200 GB/s per node; 256 GPUs.
  const net::ClusterSpec c = net::cluster_preset("dgx-a100");
  EXPECT_NEAR(nccl_ring_bandwidth(1e9, c), 200e9 * 256 / 510, 1e3);
  // Tree: 0.5 x min(0.9 x 200, 80) GB/s above 2 nodes; 2^24 x 64 B and up uncorrected,
  // 2^18 x 64 B (16 MiB) x 0.6.
  EXPECT_NEAR(nccl_tree_bandwidth(1e9 * 64 / 64 * 2, c), 40e9, 1e3);
  EXPECT_NEAR(nccl_tree_bandwidth(64.0 * (1 << 18), c), 0.6 * 40e9, 1e3);
}

TEST(AllreduceAlgorithm, TwoNodeTreeIsCreditedWithTheRaisedIntraNodeSpeed) {
  // ethernet-a100-8: one 10 Gbit/s NIC per node at efficiency 1, 1.25 GB/s; NVLink far faster.
  net::ClusterSpec c = net::cluster_preset("ethernet-a100-8");
  c.nodes = 2;
  EXPECT_NEAR(nccl_tree_bus_bandwidth(c), 2 * 1.25e9, 1);
  // 2^22 x 64 B and up uncorrected: 0.5 x 0.9 x 2.5 GB/s against the ring's 1.25 x 16/30.
  EXPECT_NEAR(nccl_tree_bandwidth(440e6, c), 1.125e9, 1);
  EXPECT_NEAR(nccl_ring_bandwidth(440e6, c), 1.25e9 * 16 / 30, 1);
  EXPECT_EQ(choose_allreduce_algorithm("auto", 440e6, c).name, "tree");
  // From 3 nodes on the tree graph keeps the inter-node speed: the ring wins at 440 MB.
  for (int nodes : {3, 4, 8}) {
    c.nodes = nodes;
    EXPECT_NEAR(nccl_tree_bus_bandwidth(c), 1.25e9, 1) << nodes;
    EXPECT_EQ(choose_allreduce_algorithm("auto", 440e6, c).name, "ring") << nodes;
  }
  // The raise stops at one GPU's link (160 Gbit/s = 20 GB/s) and never lowers the bus
  // bandwidth: NICs of 12.5 GB/s raise to 20, not 25; NICs of 25 GB/s stay at 25.
  net::ClusterSpec slow = cluster(2, 8, 1);
  slow.intra_node_gbps = 160;
  EXPECT_NEAR(nccl_tree_bus_bandwidth(slow), 20e9, 1);
  slow.inter_node_gbps = 200;
  EXPECT_NEAR(nccl_tree_bus_bandwidth(slow), 25e9, 1);
  // One node: the GPU link, unchanged.
  slow.nodes = 1;
  EXPECT_NEAR(nccl_tree_bus_bandwidth(slow), 20e9, 1);
}

TEST(AllreduceAlgorithm, AutoPicksTreeForSmallMessagesAndManyNodesRingForLargeOnFew) {
  net::ClusterSpec c = net::cluster_preset("dgx-a100");  // 32 nodes
  // 1 GB: ring 10 ms + 4 ms latency against tree 25 ms; 64 KB: ring 2.1 ms of latency
  // against the tree's 0.9 ms.
  EXPECT_EQ(choose_allreduce_algorithm("auto", 1e9, c).name, "ring");
  EXPECT_EQ(choose_allreduce_algorithm("auto", 65536, c).name, "tree");
  // 256 MB on 2 nodes: ring; on 1024 nodes the ring's 2 x 2046 network steps (130 ms)
  // outweigh the tree's lower bandwidth (6.7 ms).
  c.nodes = 2;
  EXPECT_EQ(choose_allreduce_algorithm("auto", 256e6, c).name, "ring");
  c.nodes = 1024;
  EXPECT_EQ(choose_allreduce_algorithm("auto", 256e6, c).name, "tree");
  for (const AllreduceAlgorithm& a : allreduce_algorithm_registry().entries()) {
    const double chosen = nccl_predicted_s(choose_allreduce_algorithm("auto", 256e6, c), 256e6, c);
    EXPECT_LE(chosen, nccl_predicted_s(a, 256e6, c)) << a.name;
  }
  // The override wins over the model.
  EXPECT_EQ(choose_allreduce_algorithm("ring", 256e6, c).name, "ring");
  c.nodes = 2;
  EXPECT_EQ(choose_allreduce_algorithm("tree", 256e6, c).name, "tree");
}

TEST(AllreduceAlgorithm, BadChoicesAreRefused) {
  EXPECT_NO_THROW(check_allreduce_algorithm("auto"));
  EXPECT_NO_THROW(check_allreduce_algorithm("tree"));
  EXPECT_THROW(check_allreduce_algorithm("Tree"), InvalidArgument);
  EXPECT_THROW(check_allreduce_algorithm(""), InvalidArgument);
  EXPECT_THROW(choose_allreduce_algorithm("collnet", 1e6, cluster(2, 2, 1)), InvalidArgument);
  StepConfig config;
  config.workload = net::workload_preset("bert-large-seq128");
  config.cluster = cluster(2, 2, 1);
  config.cluster.allreduce_algorithm = "nvls";
  EXPECT_THROW(simulate_step(config), InvalidArgument);
  // On a platform file only the one-channel ring runs; auto keeps to it.
  net::ClusterSpec file = cluster(4, 8, 8);
  file.platform_file = "cluster.xml";
  EXPECT_THROW(choose_allreduce_algorithm("tree", 1e6, file), InvalidArgument);
  EXPECT_EQ(choose_allreduce_algorithm("auto", 1e3, file).name, "ring");
  EXPECT_EQ(allreduce_channels(file), 1);
}

TEST(AllreduceAlgorithm, StepRowsChargeAndReportTheChosenAlgorithm) {
  StepConfig config;
  config.workload = net::workload_preset("bert-large-seq128");
  config.cluster = cluster(2, 1, 1);  // two GPUs on two nodes
  config.optimizer = "onebit-adam";
  config.overlap = OverlapMode::kOff;  // the whole allreduce after backward
  const double bytes =
      static_cast<double>(config.workload.parameters) * config.workload.wire_bytes();
  config.cluster.allreduce_algorithm = "tree";
  const std::vector<StageTiming> tree = simulate_step(config);
  ASSERT_EQ(tree.size(), 2u);
  EXPECT_EQ(tree[0].algorithm, "tree");
  EXPECT_EQ(tree[1].algorithm, "compressed-flat");
  // One edge, S each way, over 0.9 of the NIC, plus 2 x (0 x 28 + 1 x 50) us.
  EXPECT_NEAR(tree[0].comm_s, bytes / kNicBytesPerS / 0.9 + 100e-6, 1e-4 * tree[0].comm_s);
  config.cluster.allreduce_algorithm = "ring";
  const std::vector<StageTiming> ring = simulate_step(config);
  EXPECT_EQ(ring[0].algorithm, "ring");
  // Two rounds of S/2, plus NCCL's ring latency (8.4 + 2 x 9.6) x 1.9 us.
  EXPECT_NEAR(ring[0].comm_s, bytes / kNicBytesPerS + 1.9 * 27.6e-6, 1e-4 * ring[0].comm_s);
  config.cluster.allreduce_algorithm = "auto";
  EXPECT_EQ(simulate_step(config)[0].algorithm, "ring");  // NCCL's model: ring on 2 nodes
}

}  // namespace
}  // namespace compopt::sim

namespace compopt::sim {
namespace {

// The tree's round time stops depending on the node count from its timing_nodes on (even and
// odd counts: tree 1 is mirrored or shifted), which is what lets the step simulator time it
// on that many nodes; a step on a large cluster charges the same time as on timing_nodes.
TEST(AllreduceAlgorithm, TreeRoundTimeIsTheSameFromItsTimingNodesOn) {
  const AllreduceAlgorithm& tree = allreduce_algorithm_registry().get("tree");
  ASSERT_GT(tree.timing_nodes, 1);
  const int k = tree.timing_nodes;
  for (const auto& [gpus_per_node, nics] : {std::pair{1, 1}, std::pair{4, 4}}) {
    const double at_k = flow_seconds(cluster(k, gpus_per_node, nics),
                                     tree.rounds(kBytes, cluster(k, gpus_per_node, nics)));
    for (const int nodes : {k + 1, 2 * k + 3}) {
      const net::ClusterSpec c = cluster(nodes, gpus_per_node, nics);
      EXPECT_NEAR(flow_seconds(c, tree.rounds(kBytes, c)), at_k, 1e-9 * at_k)
          << nodes << " nodes x " << gpus_per_node << " GPUs, " << nics << " NICs";
    }
  }
  StepConfig config;
  config.workload = net::workload_preset("bert-large-seq128");
  config.optimizer = "adam";
  config.overlap = OverlapMode::kOff;
  config.cluster = cluster(2 * k + 3, 2, 1);
  config.cluster.allreduce_algorithm = "tree";
  const StageTiming big = simulate_step(config).front();
  const double bytes =
      static_cast<double>(config.workload.parameters) * config.workload.wire_bytes();
  const double simulated = flow_seconds(config.cluster, tree.rounds(bytes, config.cluster));
  EXPECT_NEAR(
      big.comm_s,
      simulated / tree.bandwidth_factor(config.cluster) + tree.latency_s(bytes, config.cluster),
      1e-9 * big.comm_s);
}

}  // namespace
}  // namespace compopt::sim
