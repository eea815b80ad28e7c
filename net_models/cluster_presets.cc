#include "net_models/cluster_presets.h"

namespace compopt::net {

namespace {

// 32 nodes of 8 GPUs on NVSwitch (fabric_link's NVLink figure for the GPU, at NCCL's own
// per-link efficiency), NICs at their nominal rates (efficiency 1: no published rows to fit
// them on), one star fabric.
ClusterSpec public_spec_cluster(const char* name, const char* gpu, int nics, double nic_gbps,
                                double nic_latency_s, const char* transport) {
  ClusterSpec c;
  c.name = name;
  c.nodes = 32;
  c.gpus_per_node = 8;
  c.gpu = gpu_preset(gpu);
  use_intra_node_fabric(c, IntraNodeFabric::kNvswitch);
  c.nics_per_node = nics;
  c.rail_optimized = nics > 1;
  c.inter_node_gbps = nic_gbps;
  c.inter_node_latency_s = nic_latency_s;
  c.inter_node_transport = transport_profile(transport);
  return c;
}

// NVIDIA DGX A100, DGX H100 and DGX B200 datasheets: 8 GPUs on NVSwitch and 8 single-port
// compute NICs (ConnectX-6 HDR 200 Gbit/s; ConnectX-7 NDR 400 Gbit/s), rail-optimised as in
// the DGX SuperPOD reference architectures. InfiniBand latency 2 us and Ethernet 50 us
// node to node as for the calibrated presets.
void add_public_spec_clusters(Registry<ClusterEntry>& r) {
  const ClusterSpec dgx_a100 = public_spec_cluster("dgx-a100", "A100-80GB", 8, 200, 2e-6, "rdma");
  const ClusterSpec dgx_h100 = public_spec_cluster("dgx-h100", "H100", 8, 400, 2e-6, "rdma");
  const ClusterSpec dgx_b200 = public_spec_cluster("dgx-b200", "B200", 8, 400, 2e-6, "rdma");
  const ClusterSpec h100_25g =
      public_spec_cluster("h100-ethernet-25g", "H100", 1, 25, 50e-6, "tcp");
  r.add(
      {{dgx_a100.name, {}, "32 DGX A100: 8 A100 on NVSwitch, 8 x 200 Gbit/s HDR rails"}, dgx_a100});
  r.add(
      {{dgx_h100.name, {}, "32 DGX H100: 8 H100 on NVSwitch, 8 x 400 Gbit/s NDR rails"}, dgx_h100});
  r.add(
      {{dgx_b200.name, {}, "32 DGX B200: 8 B200 on NVSwitch, 8 x 400 Gbit/s NDR rails"}, dgx_b200});
  r.add({{h100_25g.name, {}, "32 nodes x 8 H100 on NVSwitch, one 25 Gbit/s Ethernet NIC each"},
         h100_25g});
}

// The calibrated constants of the two paper clusters (their efficiencies) are the output of
// sim/network_fit.h (`compopt validate fit`; a test checks they agree); their
// spreads are the extremes of the published rows around that fit. Both run NCCL 2.4's
// algorithm choice (a hypothesis, docs/calibration.md: the paper names no version).
// Public specs: PCIe 3.0 x16 = 15.75 GB/s per direction (126 Gbit/s); V100
// NVLink 2.0 = 6 links x 25 GB/s per direction (1200 Gbit/s); A100 NVLink 3.0 =
// 12 links x 25 GB/s per direction (2400 Gbit/s). Latencies are typical figures (they
// change the fitted rows by < 1%).
ClusterSpec ethernet_v100_preset() {
  ClusterSpec ethernet_v100;
  ethernet_v100.name = "ethernet-v100-4";
  ethernet_v100.nodes = 16;
  ethernet_v100.gpus_per_node = 4;
  ethernet_v100.gpu = gpu_preset("V100-16GB");
  ethernet_v100.intra_node_fabric = IntraNodeFabric::kPcie;
  ethernet_v100.intra_node_gbps = 126;
  ethernet_v100.intra_node_latency_s = 10e-6;
  ethernet_v100.intra_node_efficiency = 0.2702;
  ethernet_v100.inter_node_gbps = 40;
  ethernet_v100.inter_node_latency_s = 50e-6;
  ethernet_v100.inter_node_efficiency = 0.1208;
  ethernet_v100.intra_node_transport = transport_profile("pcie");
  ethernet_v100.inter_node_transport = transport_profile("tcp");
  ethernet_v100.nccl_version = "2.4";
  ethernet_v100.inter_node_spread_low = 0.849;
  ethernet_v100.inter_node_spread_high = 1.039;
  ethernet_v100.spread_source =
      "low: the paper's iperf 4.1 Gbit/s / the fitted 4.832; high: Table 1 row 6 (2 nodes)";
  return ethernet_v100;
}

ClusterSpec infiniband_v100_preset() {
  ClusterSpec infiniband_v100;
  infiniband_v100.name = "infiniband-v100-8";
  infiniband_v100.nodes = 8;
  infiniband_v100.gpus_per_node = 8;
  infiniband_v100.gpu = gpu_preset("V100-32GB");
  infiniband_v100.intra_node_gbps = 1200;
  infiniband_v100.intra_node_latency_s = 5e-6;
  infiniband_v100.intra_node_efficiency = 0.2828;
  infiniband_v100.inter_node_gbps = 100;
  infiniband_v100.inter_node_latency_s = 2e-6;
  infiniband_v100.inter_node_efficiency = 0.3323;
  infiniband_v100.nccl_version = "2.4";
  infiniband_v100.inter_node_transport = transport_profile("rdma");
  infiniband_v100.inter_node_spread_low = 0.954;
  infiniband_v100.inter_node_spread_high = 1.070;
  infiniband_v100.spread_source =
      "Table 1 rows 8-12: row 10 implies 4.6% less bandwidth than the fit, row 11 7.0% more";
  return infiniband_v100;
}

Registry<ClusterEntry> make_registry() {
  const ClusterSpec ethernet_v100 = ethernet_v100_preset();
  const ClusterSpec infiniband_v100 = infiniband_v100_preset();
  // No calibration rows for A100: NVLink efficiency taken from the V100 fit,
  // 10 Gbit/s as Birder reports it, Ethernet latency as for ethernet-v100-4.
  ClusterSpec ethernet_a100;
  ethernet_a100.name = "ethernet-a100-8";
  ethernet_a100.nodes = 8;
  ethernet_a100.gpus_per_node = 8;
  ethernet_a100.gpu = gpu_preset("A100-80GB");
  ethernet_a100.intra_node_gbps = 2400;
  ethernet_a100.intra_node_latency_s = 5e-6;
  ethernet_a100.intra_node_efficiency = 0.2828;
  ethernet_a100.inter_node_gbps = 10;
  ethernet_a100.inter_node_latency_s = 50e-6;
  ethernet_a100.inter_node_efficiency = 1.0;
  ethernet_a100.inter_node_transport = transport_profile("tcp");
  ethernet_a100.nccl_version = "2.10.3";  // Birder sec. 5.1
  Registry<ClusterEntry> r("cluster preset");
  r.add({{ethernet_v100.name, {}, "16 nodes x 4 V100 over PCIe, 40 Gbit/s Ethernet (1-bit Adam)"},
         ethernet_v100});
  r.add({{infiniband_v100.name,
          {},
          "8 nodes x 8 V100 over NVLink, 100 Gbit/s InfiniBand (1-bit Adam)"},
         infiniband_v100});
  r.add({{ethernet_a100.name, {}, "8 nodes x 8 A100 over NVLink, 10 Gbit/s Ethernet (Birder)"},
         ethernet_a100});
  add_public_spec_clusters(r);
  return r;
}

}  // namespace

const Registry<ClusterEntry>& cluster_registry() {
  static const Registry<ClusterEntry> registry = make_registry();
  return registry;
}

ClusterSpec cluster_preset(std::string_view name) {
  ClusterSpec spec = cluster_registry().get(name).spec;
  spec.preset = spec.name;
  return spec;
}

std::vector<std::string> cluster_preset_names() { return cluster_registry().names(); }

}  // namespace compopt::net
