// Simulated times against hand-derived figures. With network model CM02,
// factors 1, no cross-traffic and no TCP-window cap (set by build_platform), a
// transfer of S bytes over a route costs sum(latencies) + S / min(bandwidths),
// and flows that share no link do not slow each other down.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "core/util/error.h"
#include "sim/backend/sim_transport.h"
#include "sim/backend/sim_world.h"

namespace compopt::sim {
namespace {

// Two-level star (unless a test changes the topology): GPU links of 800 Gbit/s (100 GB/s), 2 us
// GPU-to-GPU; NICs of 8 Gbit/s (1 GB/s), 10 us node-to-node.
net::ClusterSpec test_cluster(int nodes, int gpus_per_node) {
  net::ClusterSpec c;
  c.name = "test";
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.intra_node_gbps = 800;
  c.intra_node_latency_s = 2e-6;
  c.inter_node_gbps = 8;
  c.inter_node_latency_s = 10e-6;
  return c;
}

// Simulated time at which rank 1 holds a `bytes` message sent by rank 0 at t = 0.
double p2p_time(const SimRunOptions& options, size_t bytes) {
  double arrival = -1;
  run_sim(options, [&](Communicator& comm) {
    std::vector<std::byte> data(bytes);
    if (comm.rank() == 0) comm.send(1, 0, data);
    if (comm.rank() == 1) {
      comm.recv(0, 0, data);
      arrival = comm.now();
    }
  });
  return arrival;
}

TEST(SimTiming, PointToPointAcrossNodesIsLatencyPlusSizeOverBottleneck) {
  // Route: GPU link up (1 us) + NIC up (5 us) + NIC down (5 us) + GPU link down (1 us);
  // bottleneck 1 GB/s. 10 MB: 12 us + 10 ms.
  const double t = p2p_time({.cluster = test_cluster(2, 1)}, 10'000'000);
  EXPECT_NEAR(t, 12e-6 + 10e-3, 1e-9);
}

TEST(SimTiming, PointToPointInsideANodeUsesOnlyGpuLinks) {
  // 2 us + 10 MB / 100 GB/s = 2 us + 100 us.
  const double t = p2p_time({.cluster = test_cluster(1, 2)}, 10'000'000);
  EXPECT_NEAR(t, 2e-6 + 100e-6, 1e-10);
}

TEST(SimTiming, WireScaleMultipliesTheSimulatedSize) {
  SimRunOptions options{.cluster = test_cluster(2, 1), .wire = WireMap(3.0)};
  EXPECT_NEAR(p2p_time(options, 1'000'000), 12e-6 + 3e-3, 1e-9);
  options.wire.set_exact(1'000'000, 500'000);  // an exact figure overrides the scale
  EXPECT_NEAR(p2p_time(options, 1'000'000), 12e-6 + 0.5e-3, 1e-9);
}

TEST(SimTiming, Lv08AppliesSimGridsPublishedFactors) {
  net::ClusterSpec c = test_cluster(2, 1);
  c.network_model = "LV08";  // latency x13.01, bandwidth x0.97
  EXPECT_NEAR(p2p_time({.cluster = c}, 10'000'000), 13.01 * 12e-6 + 10e-3 / 0.97, 1e-8);
}

TEST(SimTiming, EfficiencyScalesTheNicBandwidth) {
  net::ClusterSpec c = test_cluster(2, 1);
  c.inter_node_efficiency = 0.5;
  EXPECT_NEAR(p2p_time({.cluster = c}, 10'000'000), 12e-6 + 20e-3, 1e-9);
}

TEST(SimTiming, FatTreeCrossLeafTrafficCrossesTheUplinks) {
  net::ClusterSpec c = test_cluster(4, 1);
  c.topology = net::Topology::kFatTree;
  c.nodes_per_switch = 2;
  c.uplink_gbps = 4;  // 0.5 GB/s: the bottleneck across leaves
  auto one_flow = [&c](int dst) {
    double arrival = -1;
    run_sim({.cluster = c}, [&](Communicator& comm) {
      std::vector<std::byte> data(1'000'000);
      if (comm.rank() == 0) comm.send(dst, 0, data);
      if (comm.rank() == dst) comm.recv(0, 0, data), arrival = comm.now();
    });
    return arrival;
  };
  EXPECT_NEAR(one_flow(1), 12e-6 + 1e-3, 1e-9);  // same leaf: NICs only
  EXPECT_NEAR(one_flow(2), 22e-6 + 2e-3, 1e-9);  // two uplink hops of 5 us, 0.5 GB/s
}

TEST(SimTiming, FlowsSharingANicSplitItsBandwidth) {
  // Rank 0 sends 1 MB to ranks 1 and 2 at once over equal-latency routes: each
  // flow gets half of the 1 GB/s NIC. (CM02 weights shares by route latency,
  // like TCP; equal latencies give equal shares.)
  std::vector<double> arrival(3, -1);
  run_sim(test_cluster(3, 1), 3, 1, [&](Communicator& comm) {
    std::vector<std::byte> data(1'000'000);
    if (comm.rank() == 0) comm.send(1, 0, data), comm.send(2, 0, data);
    if (comm.rank() > 0)
      comm.recv(0, 0, data), arrival[static_cast<size_t>(comm.rank())] = comm.now();
  });
  EXPECT_NEAR(arrival[1], 12e-6 + 2e-3, 1e-9);
  EXPECT_NEAR(arrival[2], 12e-6 + 2e-3, 1e-9);
}

TEST(SimTiming, RingAllreduceOnAStarMatchesTheRingFormula) {
  // n nodes of one GPU; GPU links with no latency and 1000x the NIC bandwidth
  // contribute only S/(n * 1000 B) per step, included below. Every ring step
  // sends S/n bytes over disjoint NIC pairs: T = 2(n-1)(L + S/(nB)).
  for (int n : {2, 3, 5, 8}) {
    net::ClusterSpec c = test_cluster(n, 1);
    c.intra_node_latency_s = 0;
    c.intra_node_gbps = 8000;
    const size_t count = 240'000 * static_cast<size_t>(n);  // n divides it, 8n too
    const double bytes = 4.0 * static_cast<double>(count);
    const double elapsed = run_sim(c, n, 1, [&](Communicator& comm) {
      std::vector<float> x(count, 1.0f);
      comm.allreduce(x);
    });
    const double expected = 2.0 * (n - 1) * (10e-6 + bytes / n / 1e9);
    EXPECT_NEAR(elapsed, expected, 1e-6 * expected) << n << " ranks";
  }
}

TEST(SimTiming, AdvanceChargesExactlyTheGivenSeconds) {
  std::vector<double> seen(3);
  const double end = run_sim(test_cluster(1, 3), 3, 3, [&](Communicator& comm) {
    comm.advance(0.25 * (comm.rank() + 1));
    seen[static_cast<size_t>(comm.rank())] = comm.now();
  });
  EXPECT_DOUBLE_EQ(seen[0], 0.25);
  EXPECT_DOUBLE_EQ(seen[2], 0.75);
  EXPECT_DOUBLE_EQ(end, 0.75);
}

TEST(SimTiming, EveryRunStartsAtTimeZero) {
  for (int i = 0; i < 3; ++i) {
    run_sim(test_cluster(1, 1), 1, 1, [](Communicator& comm) {
      EXPECT_EQ(comm.now(), 0.0);
      comm.advance(1.0);
    });
  }
}

}  // namespace
}  // namespace compopt::sim

namespace compopt::sim {
namespace {

TEST(SimTopologies, TorusAndDragonflyRouteEveryPair) {
  // Every rank sends to every other (all-to-all): each pair needs a route, and a
  // 1 MB message cannot arrive faster than over one 1 GB/s NIC hop.
  for (net::Topology topology : {net::Topology::kTorus, net::Topology::kDragonfly}) {
    net::ClusterSpec c = test_cluster(8, 2);
    c.topology = topology;
    const double elapsed = run_sim(c, 16, 2, [](Communicator& comm) {
      std::vector<std::byte> out(16 * 1'000'000), in(out.size());
      comm.alltoall(out, in);
    });
    EXPECT_GT(elapsed, 1e-3) << net::topology_name(topology);
    EXPECT_LT(elapsed, 1.0) << net::topology_name(topology);
  }
}

}  // namespace
}  // namespace compopt::sim
