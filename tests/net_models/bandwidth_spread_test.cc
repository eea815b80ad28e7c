// The bandwidth spread of a cluster (net_models/bandwidth_spread.h): the paper presets' own
// factors, the link-class defaults of a described cluster, no spread for a platform file, and
// the scaled links.

#include "net_models/bandwidth_spread.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"

namespace compopt::net {
namespace {

using ::testing::HasSubstr;

TEST(BandwidthSpread, PaperPresetsCarryTheirOwnFactors) {
  const LinkSpreads eth = link_spreads(cluster_preset("ethernet-v100-4"));
  EXPECT_EQ(eth.inter_node.low, 0.846);  // 4.1 Gbit/s iperf / 4.844 fitted
  EXPECT_EQ(eth.inter_node.high, 1.037);
  EXPECT_EQ(eth.intra_node.low, 0.9);  // no repeated 1-node row: the GPU-link default
  EXPECT_THAT(eth.source, HasSubstr("iperf"));
  EXPECT_THAT(eth.source, HasSubstr("GPU link default"));
  const LinkSpreads ib = link_spreads(cluster_preset("infiniband-v100-8"));
  EXPECT_EQ(ib.inter_node.low, 0.954);
  EXPECT_EQ(ib.inter_node.high, 1.07);
}

// The inter-node class follows the NIC latency: 50 us is a TCP stack, 2 us RDMA.
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
