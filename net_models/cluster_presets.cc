#include "net_models/cluster_presets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/util/error.h"

namespace compopt::net {

namespace {

// Public specs: PCIe 3.0 x16 = 15.75 GB/s per direction (126 Gbit/s); V100
// NVLink 2.0 = 6 links x 25 GB/s per direction (1200 Gbit/s); A100 NVLink 3.0 =
// 12 links x 25 GB/s per direction (2400 Gbit/s). Efficiencies and the IB uplink
// are fitted in docs/calibration.md; latencies are typical figures (they change
// the fitted rows by < 1%).
std::vector<ClusterSpec> presets() {
  ClusterSpec ethernet_v100;
  ethernet_v100.name = "ethernet-v100-4";
  ethernet_v100.nodes = 16;
  ethernet_v100.gpus_per_node = 4;
  ethernet_v100.intra_node_gbps = 126;
  ethernet_v100.intra_node_latency_s = 10e-6;
  ethernet_v100.intra_node_efficiency = 0.2702;
  ethernet_v100.inter_node_gbps = 40;
  ethernet_v100.inter_node_latency_s = 50e-6;
  ethernet_v100.inter_node_efficiency = 0.1209;

  ClusterSpec infiniband_v100;
  infiniband_v100.name = "infiniband-v100-8";
  infiniband_v100.nodes = 8;
  infiniband_v100.gpus_per_node = 8;
  infiniband_v100.intra_node_gbps = 1200;
  infiniband_v100.intra_node_latency_s = 5e-6;
  infiniband_v100.intra_node_efficiency = 0.2822;
  infiniband_v100.inter_node_gbps = 100;
  infiniband_v100.inter_node_latency_s = 2e-6;
  infiniband_v100.inter_node_efficiency = 0.5558;
  infiniband_v100.topology = Topology::kFatTree;
  infiniband_v100.nodes_per_switch = 2;
  infiniband_v100.uplink_gbps = 59.8;

  // No calibration rows for A100: NVLink efficiency taken from the V100 fit,
  // 10 Gbit/s as Birder reports it, Ethernet latency as for ethernet-v100-4.
  ClusterSpec ethernet_a100;
  ethernet_a100.name = "ethernet-a100-8";
  ethernet_a100.nodes = 8;
  ethernet_a100.gpus_per_node = 8;
  ethernet_a100.intra_node_gbps = 2400;
  ethernet_a100.intra_node_latency_s = 5e-6;
  ethernet_a100.intra_node_efficiency = 0.2822;
  ethernet_a100.inter_node_gbps = 10;
  ethernet_a100.inter_node_latency_s = 50e-6;
  ethernet_a100.inter_node_efficiency = 1.0;
  return {ethernet_v100, infiniband_v100, ethernet_a100};
}

}  // namespace

ClusterSpec cluster_preset(std::string_view name) {
  for (ClusterSpec& c : presets()) {
    if (c.name == name) return c;
  }
  throw InvalidArgument(fmt::format("unknown cluster preset '{}', expected one of: {}", name,
                                    fmt::join(cluster_preset_names(), ", ")));
}

std::vector<std::string> cluster_preset_names() {
  std::vector<std::string> names;
  for (const ClusterSpec& c : presets()) names.push_back(c.name);
  return names;
}

}  // namespace compopt::net
