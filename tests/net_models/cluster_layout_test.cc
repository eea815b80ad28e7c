// ClusterLayout (net_models/cluster_layout.h): GPUs grouped by NIC (GPU g of a node uses NIC
// g x k / gpus_per_node), fabric routes through the right NICs, leaves and uplinks, and the
// validation of the new ClusterSpec fields.

#include "net_models/cluster_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"

namespace compopt::net {
namespace {

ClusterSpec nodes_of_eight(int nodes, int nics) {
  ClusterSpec c;
  c.nodes = nodes;
  c.gpus_per_node = 8;
  c.nics_per_node = nics;
  return c;
}

std::vector<size_t> group_sizes(const ClusterLayout& layout) {
  std::vector<size_t> sizes;
  for (const LayoutGroup& g : layout.groups()) sizes.push_back(g.hosts.size());
  return sizes;
}

std::vector<std::string> route_names(const ClusterLayout& layout, size_t a, size_t b) {
  std::vector<std::string> names;
  for (const LinkHop& hop : layout.route(a, b)) {
    names.push_back(layout.links()[hop.link].name + (hop.up ? "+" : "-"));
  }
  return names;
}

TEST(ClusterLayout, GpusGroupByTheirNic) {
  EXPECT_EQ(group_sizes(ClusterLayout(nodes_of_eight(1, 1), false)), std::vector<size_t>{8});
  EXPECT_EQ(group_sizes(ClusterLayout(nodes_of_eight(1, 2), false)), (std::vector<size_t>{4, 4}));
  // 3 NICs: g x 3 / 8 = 0,0,0,1,1,1,2,2.
  EXPECT_EQ(group_sizes(ClusterLayout(nodes_of_eight(1, 3), false)),
            (std::vector<size_t>{3, 3, 2}));
  // 16 NICs: one GPU on every second NIC, the others idle.
  const ClusterLayout wide(nodes_of_eight(1, 16), true);
  EXPECT_EQ(wide.groups().size(), 8u);
  EXPECT_EQ(wide.groups()[1].name, "node0-nic02");
}

TEST(ClusterLayout, RoutesTakeTheGroupsNicsAndRailUplinks) {
  ClusterSpec c = nodes_of_eight(2, 2);
  const ClusterLayout flat(c, false);
  // groups: node0-nic0, node0-nic1, node1-nic0, node1-nic1; one switch for all NICs.
  EXPECT_EQ(route_names(flat, 1, 2),
            (std::vector<std::string>{"node0-nic1-link+", "node1-nic0-link-"}));
  EXPECT_EQ(route_names(flat, 0, 1), (std::vector<std::string>{"node0-switch+"}));
  EXPECT_TRUE(flat.links()[flat.route(0, 1)[0].link].fatpipe);
  c.rail_optimized = true;
  const ClusterLayout rails(c, false);
  EXPECT_EQ(route_names(rails, 0, 2),
            (std::vector<std::string>{"node0-nic0-link+", "node1-nic0-link-"}));
  EXPECT_EQ(route_names(rails, 1, 2),
            (std::vector<std::string>{"node0-nic1-link+", "leaf1-uplink+", "leaf0-uplink-",
                                      "node1-nic0-link-"}));
  // A rail leaf holds one NIC per node: uplink = 2 nodes x 100 Gbit/s (12.5 GB/s each).
  EXPECT_EQ(rails.links()[rails.route(1, 2)[1].link].bytes_per_s, 2 * 12.5e9);
}

TEST(ClusterLayout, OneNicKeepsTheNodeZonesOfBefore) {
  ClusterSpec c = cluster_preset("infiniband-v100-8");
  c.topology = Topology::kFatTree;  // two nodes per leaf switch
  c.nodes_per_switch = 2;
  c.uplink_gbps = 59.9;
  const ClusterLayout layout(c, false);
  ASSERT_EQ(layout.groups().size(), 8u);
  EXPECT_EQ(layout.groups()[3].name, "node3");
  EXPECT_EQ(layout.groups()[3].gateway, "node3-switch");
  EXPECT_EQ(route_names(layout, 0, 2), (std::vector<std::string>{"node0-nic+", "leaf0-uplink+",
                                                                 "leaf1-uplink-", "node2-nic-"}));
  EXPECT_DOUBLE_EQ(layout.links()[layout.route(0, 2)[1].link].bytes_per_s,
                   c.uplink_gbps * 1e9 / 8 * c.inter_node_efficiency);
}

TEST(ClusterLayout, PresetsTakeTheirFabricFigures) {
  EXPECT_EQ(cluster_preset("dgx-h100").intra_node_gbps, 3600);  // NVLink 4.0, 450 GB/s
  EXPECT_EQ(cluster_preset("dgx-b200").intra_node_gbps, 7200);  // NVLink 5.0, 900 GB/s
  EXPECT_EQ(cluster_preset("dgx-a100").inter_node_gbps, 200);
  EXPECT_EQ(cluster_preset("h100-ethernet-25g").nics_per_node, 1);
  EXPECT_EQ(cluster_preset("ethernet-v100-4").intra_node_fabric, IntraNodeFabric::kPcie);
}

TEST(ClusterLayout, NewFieldsAreValidated) {
  ClusterSpec c = nodes_of_eight(4, 0);
  EXPECT_THROW(c.validate(), InvalidArgument);
  c.nics_per_node = 2;
  c.topology = Topology::kDragonfly;
  EXPECT_THROW(c.validate(), InvalidArgument);
  c.topology = Topology::kFatTree;
  c.oversubscription = 0.9;
  EXPECT_THROW(c.validate(), InvalidArgument);
  c.oversubscription = 3;
  EXPECT_NO_THROW(c.validate());
  c.uplink_gbps = 50;
  EXPECT_THROW(c.validate(), InvalidArgument);
}

}  // namespace
}  // namespace compopt::net
