// The [cluster] writer (experiments/calibration/cluster_toml.h): what it writes reads back,
// through the config reader every command uses (experiments/scenario/cluster_table.h), to the
// same cluster: presets of each transport, and a cluster with fitted and unusual fields.

#include "experiments/calibration/cluster_toml.h"

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "experiments/scenario/cluster_table.h"
#include "net_models/cluster_presets.h"

namespace compopt::calibration {
namespace {

net::ClusterSpec read_back(const std::string& text) {
  const toml::table root = toml::parse(text);
  return cli::cluster_from_config(*root["cluster"].as_table());
}

void expect_same(const net::ClusterSpec& a, const net::ClusterSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.gpus_per_node, b.gpus_per_node);
  EXPECT_EQ(a.gpu.name, b.gpu.name);
  EXPECT_EQ(a.gpu.max_utilization, b.gpu.max_utilization);
  EXPECT_EQ(a.gpu.layer_overhead_s, b.gpu.layer_overhead_s);
  EXPECT_EQ(a.gpu.fp16_tflops, b.gpu.fp16_tflops);
  EXPECT_EQ(a.intra_node_fabric, b.intra_node_fabric);
  EXPECT_EQ(a.intra_node_gbps, b.intra_node_gbps);
  EXPECT_EQ(a.intra_node_latency_s, b.intra_node_latency_s);
  EXPECT_EQ(a.intra_node_efficiency, b.intra_node_efficiency);
  EXPECT_EQ(a.inter_node_gbps, b.inter_node_gbps);
  EXPECT_EQ(a.inter_node_latency_s, b.inter_node_latency_s);
  EXPECT_EQ(a.inter_node_efficiency, b.inter_node_efficiency);
  EXPECT_EQ(a.nics_per_node, b.nics_per_node);
  EXPECT_EQ(a.rail_optimized, b.rail_optimized);
  EXPECT_EQ(a.topology, b.topology);
  EXPECT_EQ(a.allreduce_algorithm, b.allreduce_algorithm);
  EXPECT_EQ(a.nccl_version, b.nccl_version);
  EXPECT_EQ(a.inter_node_spread_low, b.inter_node_spread_low);
  EXPECT_EQ(a.spread_source, b.spread_source);
  using Side = net::TransportProfile net::ClusterSpec::*;
  for (Side side :
       {&net::ClusterSpec::inter_node_transport, &net::ClusterSpec::intra_node_transport}) {
    EXPECT_EQ((a.*side).name, (b.*side).name);
    for (const net::TransportField& f : net::transport_fields())
      EXPECT_EQ(f.get(a.*side), f.get(b.*side)) << f.name;
  }
}

TEST(ClusterToml, PresetsReadBackUnchanged) {
  for (const char* name :
       {"ethernet-v100-4", "infiniband-v100-8", "dgx-h100", "h100-ethernet-25g"}) {
    SCOPED_TRACE(name);
    const net::ClusterSpec preset = net::cluster_preset(name);
    expect_same(read_back(cluster_toml(preset, "# header\n")), preset);
  }
}

TEST(ClusterToml, FittedAndUnusualFieldsReadBackUnchanged) {
  net::ClusterSpec c = net::cluster_preset("ethernet-v100-4");
  c.name = "mine \"quoted\"";
  c.inter_node_efficiency = 0.123456789012345;
  c.inter_node_latency_s = 3.3e-5;
  c.nccl_version = "2.18.3";
  c.allreduce_algorithm = "tree";
  c.inter_node_spread_low = 0.8;
  c.spread_source = "my logs";
  c.inter_node_transport.streams_per_peer = 3;
  c.gpu.max_utilization = 0.4321;
  expect_same(read_back(cluster_toml(c, "")), c);
}

}  // namespace
}  // namespace compopt::calibration
