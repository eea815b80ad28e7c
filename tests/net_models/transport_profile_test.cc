// Transport profiles (net_models/transport_profile.h): the registry, the per-flow cap, the
// incast law against hand-derived capacities, bad fields named, and the presets' transports.

#include "net_models/transport_profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "net_models/cluster_presets.h"
#include "net_models/cluster_spec.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::net {
namespace {

using ::testing::HasSubstr;
using testing_support::invalid_argument_message;

TEST(TransportProfile, RegistryNamesEveryTransportAndItsAliases) {
  EXPECT_EQ(transport_registry().names(),
            (std::vector<std::string>{"tcp", "rdma", "efa", "nvlink", "pcie"}));
  EXPECT_EQ(transport_profile("infiniband").name, "rdma");
  EXPECT_EQ(transport_profile("aws-efa").name, "efa");
  EXPECT_EQ(transport_profile("socket").name, "tcp");
  const std::string error = invalid_argument_message([] { transport_profile("udp"); });
  EXPECT_THAT(error, HasSubstr("'udp'"));
  EXPECT_THAT(error, HasSubstr("tcp"));
}

TEST(TransportProfile, SourcedFigures) {
  // No sourced per-message software cost for verbs: none charged.
  EXPECT_EQ(transport_profile("rdma").message_overhead_s, 0);
  // One socket per peer (NCCL's defaults, compopt's TCP backend), no cap by default.
  EXPECT_EQ(transport_profile("tcp").streams_per_peer, 1);
  EXPECT_EQ(transport_profile("tcp").flow_cap_gbps(), 0);
  EXPECT_GT(transport_profile("tcp").message_overhead_s, 0);
  // Measured with experiments/validation/netns_peer_cost.sh: no per-peer cost distinguishable from
  // 0.
  EXPECT_EQ(transport_profile("tcp").peer_overhead_s, 0);
  EXPECT_EQ(transport_profile("rdma").peer_overhead_s, 0);  // no published figure
  // EFA: a NIC carries what a 100 Gbit/s EFA NIC carried in a published ring run, 60%.
  EXPECT_EQ(transport_profile("efa").line_rate_share, 0.6);
  EXPECT_EQ(transport_profile("efa").flow_cap_gbps(), 0);
  EXPECT_EQ(transport_profile("tcp").line_rate_share, 1);
  EXPECT_EQ(transport_profile("efa").message_overhead_s, 0);
}

TEST(TransportProfile, EachTransportNamesItsLinkClass) {
  EXPECT_EQ(transport_registry().get("tcp").link_class, LinkClass::kEthernet);
  EXPECT_EQ(transport_registry().get("roce").link_class, LinkClass::kInfiniband);
  EXPECT_EQ(transport_registry().get("efa").link_class, LinkClass::kEthernet);
  EXPECT_EQ(transport_registry().get("nvswitch").link_class, LinkClass::kGpuLink);
  EXPECT_EQ(transport_registry().get("pcie").link_class, LinkClass::kGpuLink);
}

TEST(TransportProfile, LineRateShareIsAFractionAboveZero) {
  TransportProfile p;
  for (double bad : {0.0, -0.5, 1.5}) {
    p.line_rate_share = bad;
    EXPECT_THAT(invalid_argument_message([&] { p.validate("side"); }), HasSubstr("line_rate_share"))
        << bad;
  }
  p.line_rate_share = 0.6;
  EXPECT_NO_THROW(p.validate("side"));
}

TEST(TransportProfile, FlowCapIsStreamRateTimesStreams) {
  TransportProfile p;
  p.stream_gbps = 4.1;
  p.streams_per_peer = 4;
  EXPECT_DOUBLE_EQ(p.flow_cap_gbps(), 16.4);
}

TEST(TransportProfile, IncastLawByHand) {
  TransportProfile p;
  EXPECT_DOUBLE_EQ(incast_capacity(p, 1000, 64), 1000);  // no law set
  p.incast_flows = 2;
  p.incast_loss = 0.25;
  EXPECT_DOUBLE_EQ(incast_capacity(p, 1000, 1), 1000);
  EXPECT_DOUBLE_EQ(incast_capacity(p, 1000, 2), 1000);
  EXPECT_DOUBLE_EQ(incast_capacity(p, 1000, 4), 1000 / 1.5);  // 2 extra flows x 0.25
  EXPECT_DOUBLE_EQ(incast_capacity(p, 1000, 10), 1000 / 3.0);
}

TEST(TransportProfile, BadFieldsAreNamed) {
  const auto error = [](void (*edit)(TransportProfile&)) {
    TransportProfile p;
    edit(p);
    return invalid_argument_message([&] { p.validate("cluster 'x': inter_node_transport"); });
  };
  EXPECT_THAT(error([](TransportProfile& p) { p.message_overhead_s = -1e-6; }),
              HasSubstr("cluster 'x': inter_node_transport: message_overhead_s = -1e-06"));
  EXPECT_THAT(error([](TransportProfile& p) { p.peer_overhead_s = 2; }),
              HasSubstr("peer_overhead_s = 2"));
  EXPECT_THAT(error([](TransportProfile& p) { p.stream_gbps = -4; }), HasSubstr("stream_gbps"));
  EXPECT_THAT(error([](TransportProfile& p) { p.streams_per_peer = 0; }),
              HasSubstr("streams_per_peer = 0"));
  EXPECT_THAT(error([](TransportProfile& p) { p.incast_flows = -1; }), HasSubstr("incast_flows"));
  EXPECT_THAT(error([](TransportProfile& p) { p.incast_loss = 1.5; }),
              HasSubstr("incast_loss = 1.5"));
}

TEST(TransportProfile, ClusterValidationNamesTheSide) {
  ClusterSpec c;
  c.name = "mine";
  c.intra_node_transport.streams_per_peer = 65;
  EXPECT_THAT(invalid_argument_message([&] { c.validate(); }),
              HasSubstr("cluster 'mine': intra_node_transport: streams_per_peer = 65"));
}

TEST(TransportProfile, PresetsTakeTheirFabricsTransport) {
  const ClusterSpec ethernet = cluster_preset("ethernet-v100-4");
  EXPECT_EQ(ethernet.inter_node_transport.name, "tcp");
  // No stream cap: its calibrated allreduce beats the paper's one-stream iperf figure.
  EXPECT_EQ(ethernet.inter_node_transport.flow_cap_gbps(), 0);
  EXPECT_EQ(ethernet.intra_node_transport.name, "pcie");
  EXPECT_EQ(cluster_preset("ethernet-a100-8").inter_node_transport.name, "tcp");
  EXPECT_EQ(cluster_preset("h100-ethernet-25g").inter_node_transport.name, "tcp");
  EXPECT_EQ(cluster_preset("infiniband-v100-8").inter_node_transport.name, "rdma");
  EXPECT_EQ(cluster_preset("dgx-h100").inter_node_transport.name, "rdma");
  EXPECT_EQ(cluster_preset("dgx-h100").intra_node_transport.name, "nvlink");
}

}  // namespace
}  // namespace compopt::net
