// ClusterSpec validation, presets and GPU-count resizing: bad input is an
// InvalidArgument that names the value.

#include "net_models/cluster_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::net {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::function<void()>& fn) {
  return testing_support::invalid_argument_message(fn);
}

TEST(ClusterSpec, RejectsNonPositiveBandwidths) {
  ClusterSpec c;
  c.inter_node_gbps = -10;
  EXPECT_THAT(error_of([&] { c.validate(); }),
              HasSubstr("inter_node_gbps = -10, expected 0.001..100000 (Gbit/s"));
  c.inter_node_gbps = 0;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("inter_node_gbps = 0"));
  c = ClusterSpec{};
  c.intra_node_gbps = 0;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("intra_node_gbps = 0"));
  c = ClusterSpec{};
  c.inter_node_efficiency = -0.5;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("inter_node_efficiency = -0.5"));
}

// Rates outside 1 Mbit/s..100 Tbit/s (a denormal rate ran SimGrid into a false deadlock),
// latencies beyond 1 s, fractions above 1 and counts beyond one machine's simulator.
TEST(ClusterSpec, RejectsFiguresOutsideTheirPhysicalRanges) {
  ClusterSpec c;
  c.inter_node_gbps = 1e-320;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("inter_node_gbps = 1e-320"));
  c.inter_node_gbps = 1e-3;  // the bounds themselves are accepted
  EXPECT_NO_THROW(c.validate());
  c.inter_node_gbps = 1e5;
  EXPECT_NO_THROW(c.validate());
  c.inter_node_gbps = 1.5e5;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("inter_node_gbps = 150000"));
  c = ClusterSpec{};
  c.intra_node_latency_s = 2;
  EXPECT_THAT(error_of([&] { c.validate(); }),
              HasSubstr("intra_node_latency_s = 2, expected 0..1"));
  c = ClusterSpec{};
  c.inter_node_efficiency = 1.2;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("inter_node_efficiency = 1.2"));
  c = ClusterSpec{};
  c.gpus_per_node = 2000;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("gpus_per_node = 2000, expected 1..1024"));
  c = ClusterSpec{};
  c.topology = Topology::kFatTree;
  c.uplink_gbps = 1e6;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("uplink_gbps = 1000000"));
  c.uplink_gbps = 0;  // 0: non-blocking
  EXPECT_NO_THROW(c.validate());
}

TEST(ClusterSpec, RejectsBadCountsAndModels) {
  ClusterSpec c;
  c.nodes = 0;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("nodes = 0, expected 1..1048576"));
  // 2^20 GPUs in all: one per node, or 2^17 nodes of 8; one GPU more is refused.
  c.nodes = 1 << 20;
  c.gpus_per_node = 1;
  EXPECT_NO_THROW(c.validate());
  c.nodes = 1 << 17;
  c.gpus_per_node = 8;
  EXPECT_NO_THROW(c.validate());
  c.gpus_per_node = 9;
  EXPECT_THAT(error_of([&] { c.validate(); }),
              HasSubstr("nodes x gpus_per_node = 131072 x 9 GPUs, expected at most 1048576"));
  c = ClusterSpec{};
  c.network_model = "Constant";
  EXPECT_THAT(error_of([&] { c.validate(); }),
              HasSubstr("network_model 'Constant', expected CM02 or LV08"));
  c = ClusterSpec{};
  c.nodes = 6;
  c.topology = Topology::kFatTree;
  c.nodes_per_switch = 4;
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("nodes_per_switch = 4"));
  c.topology = Topology::kTorus;
  c.torus_dims = {2, 2};
  EXPECT_THAT(error_of([&] { c.validate(); }),
              HasSubstr("torus dimensions multiply to 4, expected nodes = 6"));
  c = ClusterSpec{};
  c.platform_file = "/no/such/platform.xml";
  EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("'/no/such/platform.xml' does not exist"));
}

TEST(ClusterSpec, TopologyNamesRoundTrip) {
  for (const char* name : {"star", "fat-tree", "torus", "dragonfly"}) {
    EXPECT_EQ(topology_name(parse_topology(name)), name);
  }
  EXPECT_THAT(error_of([] { parse_topology("hypercube"); }), HasSubstr("topology 'hypercube'"));
}

TEST(ClusterSpec, WithGpusDividesIntoNodes) {
  const ClusterSpec base = cluster_preset("ethernet-v100-4");
  EXPECT_EQ(with_gpus(base, 64).nodes, 16);
  EXPECT_EQ(with_gpus(base, 2).nodes, 1);
  EXPECT_EQ(with_gpus(base, 2).gpus_per_node, 2);
  EXPECT_THAT(error_of([&] { with_gpus(base, 10); }),
              HasSubstr("gpus = 10 does not divide into nodes of 4 GPUs"));
  EXPECT_THAT(error_of([&] { with_gpus(base, 0); }), HasSubstr("gpus = 0"));
}

TEST(ClusterSpec, AutomaticShapesMultiplyToNodes) {
  ClusterSpec c;
  for (int nodes : {1, 6, 8, 12, 64, 128}) {
    c.nodes = nodes;
    int product = 1;
    for (int d : effective_torus_dims(c)) product *= d;
    EXPECT_EQ(product, nodes);
    EXPECT_EQ(nodes % effective_dragonfly_groups(c), 0);
  }
  c.nodes = 64;
  EXPECT_THAT(effective_torus_dims(c), ::testing::ElementsAre(4, 4, 4));
}

TEST(ClusterPresets, PapersClustersLoadAndValidate) {
  for (const std::string& name : cluster_preset_names()) {
    const ClusterSpec c = cluster_preset(name);
    EXPECT_EQ(c.name, name);
    EXPECT_NO_THROW(c.validate()) << name;
  }
  EXPECT_EQ(cluster_preset("ethernet-v100-4").gpus_per_node, 4);
  EXPECT_EQ(cluster_preset("infiniband-v100-8").gpus_per_node, 8);
  EXPECT_EQ(cluster_preset("ethernet-a100-8").inter_node_gbps, 10);
  EXPECT_THAT(error_of([] { cluster_preset("dgx-9000"); }),
              HasSubstr("unknown cluster preset 'dgx-9000', expected one of ethernet-v100-4"));
}

TEST(ClusterPresets, RegistryKeepsTheSpecsAndTheirHelp) {
  EXPECT_EQ(cluster_preset_names(),
            (std::vector<std::string>{"ethernet-v100-4", "infiniband-v100-8", "ethernet-a100-8",
                                      "dgx-a100", "dgx-h100", "dgx-b200", "h100-ethernet-25g"}));
  for (const ClusterEntry& e : cluster_registry().entries()) {
    EXPECT_EQ(e.spec.name, e.name);
    EXPECT_FALSE(e.help.empty()) << e.name;
  }
  // The calibrated figures (docs/calibration.md) are unchanged.
  const ClusterSpec ib = cluster_preset("infiniband-v100-8");
  EXPECT_EQ(ib.topology, Topology::kStar);
  EXPECT_EQ(ib.nccl_version, "2.4");
  EXPECT_DOUBLE_EQ(ib.inter_node_efficiency, 0.3323);
  EXPECT_DOUBLE_EQ(cluster_preset("ethernet-v100-4").inter_node_efficiency, 0.1208);
}

}  // namespace
}  // namespace compopt::net
