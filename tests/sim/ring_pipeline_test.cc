// The ring's pipelined latency (sim/ring_pipeline.h) against hand-derived figures: the hop
// latencies of a star (a GPU link is half the intra-node latency each way, a NIC link half the
// inter-node one), the lock-step over-charge 2(n-N)(inter - intra) taken off, a tiny ring paying
// each hop once, and a large allreduce on 32 TCP nodes where the ring again beats the tree, as
// public nccl-tests runs on 5 and 8 nodes show.

#include "sim/ring_pipeline.h"

#include <gtest/gtest.h>

#include "net_models/cluster_presets.h"
#include "sim/collective_prediction.h"
#include "sim/nccl_tuning.h"

namespace compopt::sim {
namespace {

// 4 nodes x 2 GPUs on a star, RDMA NICs (no per-message cost), 20 us between nodes and 1 us
// inside: a hop across nodes crosses two GPU links (0.5 us each) and two NIC links (10 us
// each), 21 us; inside a node two GPU links, 1 us.
net::ClusterSpec four_by_two() {
  net::ClusterSpec c;
  c.name = "four-by-two";
  c.nodes = 4;
  c.gpus_per_node = 2;
  c.inter_node_gbps = 100;
  c.inter_node_latency_s = 20e-6;
  c.intra_node_latency_s = 1e-6;
  c.inter_node_transport = net::transport_profile("rdma");
  c.allreduce_algorithm = "ring";
  return c;
}

TEST(RingPipeline, HopLatenciesOfAStar) {
  const RingHopLatency hop = ring_hop_latency(four_by_two());
  EXPECT_NEAR(hop.inter_node_s, 21e-6, 0.05e-6);
  EXPECT_NEAR(hop.intra_node_s, 1e-6, 0.05e-6);
}

// A torus does not collapse: the probe runs on every rank and finds the same hop inside a node.
TEST(RingPipeline, HopLatencyInsideANodeOnATorus) {
  net::ClusterSpec c = four_by_two();
  c.topology = net::Topology::kTorus;
  EXPECT_NEAR(ring_hop_latency(c).intra_node_s, 1e-6, 0.05e-6);
}

// 8 GPUs on 4 nodes: 2 x (8 - 4) = 8 lock-step rounds paid 21 us where their hop takes 1 us.
TEST(RingPipeline, TakesOffTheLockStepOverCharge) {
  const RingHopLatency hop{.inter_node_s = 21e-6, .intra_node_s = 1e-6};
  EXPECT_NEAR(pipelined_ring_s(1.0, four_by_two(), hop), 1.0 - 8 * 20e-6, 1e-12);
  net::ClusterSpec one_node = four_by_two();
  one_node.nodes = 1;
  EXPECT_EQ(pipelined_ring_s(1.0, one_node, hop), 1.0);
  net::ClusterSpec one_gpu = four_by_two();
  one_gpu.gpus_per_node = 1;
  EXPECT_EQ(pipelined_ring_s(1.0, one_gpu, hop), 1.0);
}

// 4 bytes: NCCL's latency (8.4 + 8 x 3.4 + 6 x 9.6 = 93.2 us, no plateau below n x 4 KiB) plus
// each hop of the two passes once: 2 x (3 x 21 + 4 x 1) = 134 us, 227.2 us in all. Lock-step
// rounds would charge 2 x 7 x 21 = 294 us of wire instead.
TEST(RingPipeline, TinyRingPaysEachHopOnce) {
  const net::ClusterSpec c = four_by_two();
  EXPECT_NEAR(nccl_ring_latency_s(4, c), 93.2e-6, 1e-9);
  const AllreducePrediction p = predict_allreduce(c, 4);
  EXPECT_EQ(p.algorithm, "ring");
  EXPECT_NEAR(p.seconds, 227.2e-6, 1e-6);
}

// NVIDIA/nccl#1368 (5 nodes x 8 H100, 4 x 400 Gbit/s RoCE, NCCL 2.20, 2024-07-18): ring busbw
// about 190 GB/s, tree about 150 GB/s at 1 GB; NVIDIA/nccl#319 (8 nodes, one switch,
// 2020-04-10): ring 43.6, tree 36.8 GB/s. On many nodes the tree's large messages are slower.
// 1 GiB on 32 nodes x 8 A100 with one 100 Gbit/s TCP NIC (50 us + 38 us per message): the
// lock-step ring (222.6 ms, 510 rounds at 93 us of latency each) lost to the tree (191.9 ms);
// pipelined, it wins.
TEST(RingPipeline, LargeRingBeatsTheTreeOnManyNodes) {
  net::ClusterSpec c = net::cluster_preset("ethernet-a100-8");
  c.nodes = 32;
  c.inter_node_gbps = 100;
  c.allreduce_algorithm = "ring";
  const double bytes = 1073741824;
  const double ring_s = predict_allreduce(c, bytes).seconds;
  c.allreduce_algorithm = "tree";
  const double tree_s = predict_allreduce(c, bytes).seconds;
  EXPECT_LT(ring_s, tree_s);
  // Its bus bandwidth: 2(n-1)/n S over the NIC's 12.5 GB/s plus the hop chain and NCCL's
  // latency, within 7% of the NIC.
  const double busbw = bytes / ring_s * 2 * 255 / 256;
  EXPECT_GT(busbw, 0.93 * 12.5e9);
  EXPECT_LT(busbw, 12.5e9);
}

}  // namespace
}  // namespace compopt::sim
