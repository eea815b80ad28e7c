// The bandwidth spread of a cluster (net_models/bandwidth_spread.h): the paper presets' own
// factors, the link-class defaults of a described cluster, no spread for a platform file, and
// the scaled links.

#include "net_models/bandwidth_spread.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"
#include "net_models/transport_profile.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::net {
namespace {

using ::testing::HasSubstr;
using testing_support::invalid_argument_message;

TEST(BandwidthSpread, PaperPresetsCarryTheirOwnFactors) {
  const LinkSpreads eth = link_spreads(cluster_preset("ethernet-v100-4"));
  EXPECT_EQ(eth.inter_node.low, 0.849);  // 4.1 Gbit/s iperf / the fitted effective rate
  EXPECT_EQ(eth.inter_node.high, 1.039);
  EXPECT_EQ(eth.intra_node.low, 0.9);  // no repeated 1-node row: the GPU-link default
  EXPECT_THAT(eth.source, HasSubstr("iperf"));
  EXPECT_THAT(eth.source, HasSubstr("GPU link default"));
  const LinkSpreads ib = link_spreads(cluster_preset("infiniband-v100-8"));
  EXPECT_EQ(ib.inter_node.low, 0.954);
  EXPECT_EQ(ib.inter_node.high, 1.07);
  // Each class's own source, as the band's range lines print it.
  EXPECT_EQ(ib.inter_node_source.rfind("the cluster's. Source: ", 0), 0u) << ib.inter_node_source;
  EXPECT_THAT(ib.intra_node_source, HasSubstr("GPU link default for transport nvlink"));
  EXPECT_THAT(ib.intra_node_source, ::testing::Not(HasSubstr("Source:")));
}

// The presets' transports: tcp on the Ethernet presets, rdma on the DGX ones, nvlink inside.
TEST(BandwidthSpread, DescribedClustersTakeTheirLinkClassDefault) {
  ClusterSpec tcp = cluster_preset("h100-ethernet-25g");
  const LinkSpreads t = link_spreads(tcp);
  EXPECT_EQ(t.inter_node.low, 0.85);
  EXPECT_EQ(t.inter_node.high, 1.04);
  EXPECT_THAT(t.source, HasSubstr("Ethernet/TCP default"));
  const LinkSpreads r = link_spreads(cluster_preset("dgx-h100"));
  EXPECT_EQ(r.inter_node.low, 0.95);
  EXPECT_EQ(r.inter_node.high, 1.07);
  EXPECT_THAT(r.source, HasSubstr("InfiniBand/RDMA default"));
  EXPECT_EQ(r.intra_node.low, 0.9);
  EXPECT_EQ(r.intra_node.high, 1.1);
  tcp.inter_node_spread_high = 1.5;  // one factor given, the other from the class
  EXPECT_EQ(link_spreads(tcp).inter_node.high, 1.5);
  EXPECT_EQ(link_spreads(tcp).inter_node.low, 0.85);
}

// The class follows the transport's name, not the NIC latency: a TCP cluster with an RDMA-like
// 1 us latency is still TCP, an RDMA cluster with a TCP-like 50 us latency still RDMA.
TEST(BandwidthSpread, ClassFollowsTheTransportNotTheLatency) {
  ClusterSpec c = cluster_preset("dgx-h100");
  c.inter_node_transport = transport_profile("tcp");
  c.inter_node_latency_s = 1e-6;
  const LinkSpreads tcp = link_spreads(c);
  EXPECT_EQ(tcp.inter_node.low, 0.85);
  EXPECT_EQ(tcp.inter_node.high, 1.04);
  EXPECT_THAT(tcp.source, HasSubstr("Ethernet/TCP default for transport tcp"));
  c.inter_node_transport = transport_profile("roce");  // an alias of rdma
  c.inter_node_latency_s = 50e-6;
  const LinkSpreads rdma = link_spreads(c);
  EXPECT_EQ(rdma.inter_node.low, 0.95);
  EXPECT_EQ(rdma.inter_node.high, 1.07);
  EXPECT_THAT(rdma.source, HasSubstr("InfiniBand/RDMA default for transport rdma"));
  // A replaced field keeps the transport's class.
  c.inter_node_transport = transport_profile("tcp");
  c.inter_node_transport.message_overhead_s = 1e-3;
  EXPECT_EQ(link_spreads(c).inter_node.low, 0.85);
}

// Each side takes its own transport's class: PCIe is a GPU link, and a TCP intra-node side
// (ranks that talk over sockets inside a host) takes the TCP class.
TEST(BandwidthSpread, IntraNodeClassFollowsItsTransport) {
  ClusterSpec c = cluster_preset("h100-ethernet-25g");
  c.intra_node_transport = transport_profile("pcie");
  EXPECT_EQ(link_spreads(c).intra_node.low, 0.9);
  EXPECT_EQ(link_spreads(c).intra_node.high, 1.1);
  EXPECT_THAT(link_spreads(c).source, HasSubstr("GPU link default for transport pcie"));
  c.intra_node_transport = transport_profile("tcp");
  EXPECT_EQ(link_spreads(c).intra_node.low, 0.85);
  EXPECT_EQ(link_spreads(c).intra_node.high, 1.04);
}

// Every transport of the registry has a class with a default, and a profile outside the
// registry is refused by name.
TEST(BandwidthSpread, EveryTransportHasAClassAndUnknownOnesAreNamed) {
  ClusterSpec c = cluster_preset("dgx-h100");
  for (const std::string& name : transport_registry().names()) {
    c.inter_node_transport = transport_profile(name);
    const LinkSpreads s = link_spreads(c);
    EXPECT_LT(s.inter_node.low, 1) << name;
    EXPECT_GT(s.inter_node.high, 1) << name;
  }
  c.inter_node_transport = TransportProfile{};  // named "custom"
  EXPECT_THAT(invalid_argument_message([&] { link_spreads(c); }),
              HasSubstr("unknown transport 'custom'"));
}

TEST(BandwidthSpread, PlatformFileHasNoSpread) {
  ClusterSpec c = cluster_preset("dgx-h100");
  c.platform_file = "platform.xml";
  const LinkSpreads s = link_spreads(c);
  EXPECT_EQ(s.inter_node.low, 1);
  EXPECT_EQ(s.intra_node.high, 1);
  EXPECT_THAT(s.source, HasSubstr("platform file"));
}

TEST(BandwidthSpread, ScaledBandwidthTouchesRatesOnly) {
  ClusterSpec ib = cluster_preset("infiniband-v100-8");
  ib.topology = Topology::kFatTree;  // an uplink of its own scales too
  ib.nodes_per_switch = 2;
  ib.uplink_gbps = 59.9;
  const ClusterSpec s = with_scaled_bandwidth(ib, 0.5, 2);
  EXPECT_EQ(s.inter_node_gbps, 50);
  EXPECT_EQ(s.uplink_gbps, 29.95);
  EXPECT_EQ(s.intra_node_gbps, 2400);
  EXPECT_EQ(s.inter_node_efficiency, ib.inter_node_efficiency);
  EXPECT_EQ(s.inter_node_latency_s, ib.inter_node_latency_s);
  EXPECT_EQ(with_scaled_bandwidth(cluster_preset("dgx-h100"), 2, 1).uplink_gbps, 0);  // derived
  // At the edges of the simulator's rate range the scaled rate stays a valid one.
  ClusterSpec edge = cluster_preset("dgx-h100");
  edge.inter_node_gbps = 1e5;
  edge.intra_node_gbps = 1e-3;
  const ClusterSpec held = with_scaled_bandwidth(edge, 1.07, 0.9);
  EXPECT_EQ(held.inter_node_gbps, 1e5);
  EXPECT_EQ(held.intra_node_gbps, 1e-3);
  EXPECT_NO_THROW(held.validate());
}

TEST(BandwidthSpread, ValidateRefusesFactorsOnTheWrongSide) {
  ClusterSpec c = cluster_preset("dgx-h100");
  c.inter_node_spread_low = 1.2;
  EXPECT_THROW(c.validate(), InvalidArgument);
  c.inter_node_spread_low = 0;
  c.intra_node_spread_high = 0.9;
  EXPECT_THROW(c.validate(), InvalidArgument);
  c.intra_node_spread_high = 11;
  EXPECT_THROW(c.validate(), InvalidArgument);
  c.intra_node_spread_high = 10;
  EXPECT_NO_THROW(c.validate());
}

}  // namespace
}  // namespace compopt::net
