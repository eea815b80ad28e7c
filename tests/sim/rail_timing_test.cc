// Several NICs per node and rail-optimised fabrics (net::ClusterSpec::nics_per_node,
// rail_optimized, oversubscription) against hand-derived times: with CM02, factors 1 and
// no cross-traffic, S bytes over a route cost sum(latencies) + S / (the route's bottleneck
// share), and flows that share no link do not slow each other down.

#include <gtest/gtest.h>

#include <vector>

#include "sim/backend/sim_world.h"

namespace compopt::sim {
namespace {

constexpr size_t kBytes = 1'000'000;
// Route latencies: GPU link 1 us each way, NIC 5 us each way, leaf uplink 5 us each way.
constexpr double kNodeToNode = 12e-6, kAcrossLeaves = 22e-6;

// Nodes of 8 GPUs with 800 Gbit/s (100 GB/s) GPU links and 8 Gbit/s (1 GB/s) NICs.
net::ClusterSpec eight_gpu_nodes(int nodes, int nics) {
  net::ClusterSpec c;
  c.name = "rails";
  c.nodes = nodes;
  c.gpus_per_node = 8;
  c.nics_per_node = nics;
  c.intra_node_gbps = 800;
  c.intra_node_latency_s = 2e-6;
  c.inter_node_gbps = 8;
  c.inter_node_latency_s = 10e-6;
  return c;
}

// Every GPU g of node 0 sends kBytes to rank dst(g) at t = 0; the last arrival.
template <typename Dst>
double concurrent_flows(const net::ClusterSpec& c, Dst dst) {
  std::vector<double> arrival(static_cast<size_t>(c.gpus()), 0);
  run_sim(c, c.gpus(), c.gpus_per_node, [&](Communicator& comm) {
    std::vector<std::byte> data(kBytes);
    const int r = comm.rank();
    if (r < 8) comm.send(dst(r), 0, data);
    for (int g = 0; g < 8; ++g) {
      if (dst(g) == r) comm.recv(g, 0, data), arrival[static_cast<size_t>(r)] = comm.now();
    }
  });
  double last = 0;
  for (const double t : arrival) last = std::max(last, t);
  return last;
}

TEST(RailTiming, EightNicsCarryEightFlowsAtFullRateEach) {
  auto same_gpu = [](int g) { return 8 + g; };  // GPU g of node 0 -> GPU g of node 1
  EXPECT_NEAR(concurrent_flows(eight_gpu_nodes(2, 8), same_gpu), kNodeToNode + 1e-3, 1e-9);
  // One NIC: the eight flows share it.
  EXPECT_NEAR(concurrent_flows(eight_gpu_nodes(2, 1), same_gpu), kNodeToNode + 8e-3, 1e-9);
  // Two NICs: GPUs 0-3 use NIC 0, 4-7 NIC 1; four flows share each.
  EXPECT_NEAR(concurrent_flows(eight_gpu_nodes(2, 2), same_gpu), kNodeToNode + 4e-3, 1e-9);
}

TEST(RailTiming, GpusOfOneNodeMeetThroughTheNodeSwitchNotTheNics) {
  // GPU g -> GPU g+1 of the same node, another NIC group: GPU links only (2 us, 100 GB/s).
  net::ClusterSpec c = eight_gpu_nodes(1, 8);
  const double t = concurrent_flows(c, [](int g) { return (g + 1) % 8; });
  EXPECT_NEAR(t, 2e-6 + kBytes / 100e9, 1e-10);
}

TEST(RailTiming, CrossRailTrafficClimbsToTheSpine) {
  net::ClusterSpec c = eight_gpu_nodes(2, 8);
  c.rail_optimized = true;
  auto next_rail = [](int g) { return 8 + (g + 1) % 8; };
  // Same rail: one switch. Other rail: up and down the rail switches' uplinks (non-blocking:
  // each rail leaf has 2 NICs, so 2 GB/s up and down, one flow each way).
  EXPECT_NEAR(concurrent_flows(c, [](int g) { return 8 + g; }), kNodeToNode + 1e-3, 1e-9);
  EXPECT_NEAR(concurrent_flows(c, next_rail), kAcrossLeaves + 1e-3, 1e-9);
  // Oversubscription 4: each rail uplink carries 2 x 1 GB/s / 4 = 0.5 GB/s.
  c.oversubscription = 4;
  EXPECT_NEAR(concurrent_flows(c, next_rail), kAcrossLeaves + 2e-3, 1e-9);
  c.oversubscription = 1;
  c.uplink_gbps = 2;  // 0.25 GB/s
  EXPECT_NEAR(concurrent_flows(c, next_rail), kAcrossLeaves + 4e-3, 1e-9);
}

TEST(RailTiming, FatTreeOversubscriptionSetsTheUplink) {
  // 4 nodes, 2 per leaf, one NIC each: leaf uplink = 2 x 1 GB/s / 2 = 1 GB/s shared by the
  // two flows from leaf 0 to leaf 1.
  net::ClusterSpec c = eight_gpu_nodes(4, 1);
  c.gpus_per_node = 1;
  c.topology = net::Topology::kFatTree;
  c.nodes_per_switch = 2;
  c.oversubscription = 2;
  double last = 0;
  run_sim(c, 4, 1, [&](Communicator& comm) {
    std::vector<std::byte> data(kBytes);
    if (comm.rank() < 2) comm.send(comm.rank() + 2, 0, data);
    if (comm.rank() >= 2) comm.recv(comm.rank() - 2, 0, data), last = std::max(last, comm.now());
  });
  EXPECT_NEAR(last, kAcrossLeaves + 2e-3, 1e-9);
}

}  // namespace
}  // namespace compopt::sim
