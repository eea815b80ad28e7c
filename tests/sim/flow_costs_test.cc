// The transport mechanisms in the simulator (sim/flow_costs.h, SimTransport, the NIC links'
// incast law): the pieces by hand, then whole simulations against hand-derived times on
// platforms with zero latency: n messages cost n x the per-message cost, a new peer its
// per-peer cost, one flow runs at its cap, and k flows into one NIC share the law's capacity.

#include "sim/flow_costs.h"

#include <gtest/gtest.h>

#include <vector>

#include "sim/backend/sim_transport.h"
#include "sim/backend/sim_world.h"

namespace compopt::sim {
namespace {

constexpr Channel kChannel = 7;

// nodes x gpus_per_node GPUs, every latency 0, NICs of `nic_gbps`, transports without costs.
net::ClusterSpec bare_cluster(int nodes, int gpus_per_node, double nic_gbps) {
  net::ClusterSpec c;
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.inter_node_gbps = nic_gbps;
  c.inter_node_latency_s = 0;
  c.intra_node_latency_s = 0;
  c.inter_node_transport = net::TransportProfile{};
  c.intra_node_transport = net::TransportProfile{};
  return c;
}

void send_bytes(Communicator& comm, int dst, size_t bytes) {
  const std::vector<std::byte> data(bytes);
  SimTransport::of(comm).send(dst, kChannel, data);
}

void recv_bytes(Communicator& comm, int src, size_t bytes) {
  std::vector<std::byte> data(bytes);
  SimTransport::of(comm).recv(src, kChannel, data);
}

TEST(FlowCosts, PiecesByHand) {
  net::TransportProfile p;
  p.message_overhead_s = 2e-6;
  p.peer_overhead_s = 1e-4;
  EXPECT_DOUBLE_EQ(send_overhead_s(p, 5, 2), 5 * 2e-6 + 2 * 1e-4);
  EXPECT_DOUBLE_EQ(flow_rate_cap(p), 0);  // no stream rate: uncapped
  p.stream_gbps = 8;
  p.streams_per_peer = 2;
  EXPECT_DOUBLE_EQ(flow_rate_cap(p), 16e9 / 8);
  net::ClusterSpec c;
  c.inter_node_transport = net::transport_profile("tcp");
  c.intra_node_transport = net::transport_profile("pcie");
  EXPECT_EQ(transport_between(c, true).name, "tcp");
  EXPECT_EQ(transport_between(c, false).name, "pcie");
}

TEST(FlowCosts, NMessagesCostNTimesThePerMessageCost) {
  net::ClusterSpec c = bare_cluster(2, 1, 100);
  c.inter_node_transport.message_overhead_s = 1e-3;
  const double t = run_sim(c, 2, 1, [](Communicator& comm) {
    for (int i = 0; i < 5; ++i) {
      if (comm.rank() == 0) send_bytes(comm, 1, 0);
      if (comm.rank() == 1) recv_bytes(comm, 0, 0);
    }
  });
  EXPECT_NEAR(t, 5e-3, 1e-9);
}

TEST(FlowCosts, NewPeersCostOnceEachAndIntraNodeMessagesTheirOwnCost) {
  net::ClusterSpec c = bare_cluster(2, 2, 100);  // ranks 0, 1 on node 0; 2, 3 on node 1
  c.inter_node_transport.message_overhead_s = 1e-3;
  c.inter_node_transport.peer_overhead_s = 10e-3;
  c.intra_node_transport.message_overhead_s = 4e-3;
  const double t = run_sim(c, 4, 2, [](Communicator& comm) {
    if (comm.rank() == 0) {
      for (const int dst : {2, 2, 3, 1}) send_bytes(comm, dst, 0);
    } else if (comm.rank() == 1) {
      recv_bytes(comm, 0, 0);
    } else {
      for (int i = 0; i < (comm.rank() == 2 ? 2 : 1); ++i) recv_bytes(comm, 0, 0);
    }
  });
  // Three inter-node messages to two new peers, then one intra-node message.
  EXPECT_NEAR(t, 3 * 1e-3 + 2 * 10e-3 + 4e-3, 1e-9);
}

TEST(FlowCosts, OneFlowRunsAtItsCap) {
  net::ClusterSpec c = bare_cluster(2, 1, 100);
  const auto transfer = [&c] {
    return run_sim(c, 2, 1, [](Communicator& comm) {
      if (comm.rank() == 0) send_bytes(comm, 1, 1'000'000);
      if (comm.rank() == 1) recv_bytes(comm, 0, 1'000'000);
    });
  };
  EXPECT_NEAR(transfer(), 8e6 / 100e9, 1e-9);  // the NIC's rate
  c.inter_node_transport.stream_gbps = 1;
  c.inter_node_transport.streams_per_peer = 2;
  EXPECT_NEAR(transfer(), 8e6 / 2e9, 1e-9);  // two 1 Gbit/s streams
}

// Three senders on nodes 1..3 to the three GPUs of node 0: three flows into its NIC.
double fan_in(const net::ClusterSpec& c) {
  return run_sim(c, 12, 3, [](Communicator& comm) {
    const int r = comm.rank();
    if (r < 3) recv_bytes(comm, 3 * (r + 1), 1'000'000);
    if (r >= 3 && r % 3 == 0) send_bytes(comm, r / 3 - 1, 1'000'000);
  });
}

TEST(FlowCosts, FlowsIntoOneNicShareTheIncastCapacity) {
  net::ClusterSpec c = bare_cluster(4, 3, 1);
  EXPECT_NEAR(fan_in(c), 3 * 8e6 / 1e9, 1e-9);  // fair share of the full NIC
  c.inter_node_transport.incast_flows = 1;
  c.inter_node_transport.incast_loss = 0.5;
  // 3 flows: capacity 1 Gbit/s / (1 + 0.5 x 2) = 0.5 Gbit/s.
  EXPECT_NEAR(fan_in(c), 3 * 8e6 / 0.5e9, 1e-9);
  c.inter_node_transport.incast_flows = 3;  // three flows are within the law's free flows
  EXPECT_NEAR(fan_in(c), 3 * 8e6 / 1e9, 1e-9);
}

}  // namespace
}  // namespace compopt::sim
