#pragma once
// ClusterSpec: what a simulated cluster looks like (nodes of GPUs, the links
// inside a node and between nodes, the inter-node topology and the SimGrid
// network model), or a user's SimGrid platform XML instead. Bandwidths are in
// Gbit/s, latencies in seconds. validate() checks every field and throws
// InvalidArgument naming the bad value; platform building assumes a valid spec.
//
// Link model (docs/simulator.md): every GPU has a full-duplex link of
// intra_node_gbps to its node's switch, latency intra_node_latency_s / 2, so a
// GPU-to-GPU hop inside a node costs intra_node_latency_s. Every node has a
// full-duplex NIC of inter_node_gbps, latency inter_node_latency_s / 2, to the
// fabric; `topology` says how NICs are connected. A node may have several NICs
// (nics_per_node = k): GPU g of a node sends and receives through NIC
// g x k / gpus_per_node. Rail-optimised (as in DGX clusters): NIC r of every node
// hangs off rail switch r, so same-rail traffic crosses one switch and cross-rail
// traffic goes up to the spine through the rail switches' uplinks.

#include <string>
#include <string_view>
#include <vector>

#include "net_models/cluster_fabric.h"
#include "net_models/gpu_spec.h"
#include "net_models/transport_profile.h"

namespace compopt::net {

// The most GPUs a cluster may have, nodes x GPUs per node (and the most nodes): the step
// simulator times 1,048,576 GPUs in under a minute where the collectives collapse
// (sim/collapsed_rounds.h); elsewhere the host-memory check of the commands refuses far fewer.
inline constexpr int kMaxClusterGpus = 1 << 20;

enum class Topology { kStar, kFatTree, kTorus, kDragonfly };

// Parses "star" | "fat-tree" | "torus" | "dragonfly"; throws InvalidArgument otherwise.
Topology parse_topology(std::string_view name);
std::string_view topology_name(Topology topology);

struct ClusterSpec {
  std::string name = "custom";
  // The preset this cluster starts from (cluster_presets.h); empty: ClusterSpec's plain
  // defaults, as a cluster described by its keys alone (docs/simulator.md).
  std::string preset;
  int nodes = 1;
  int gpus_per_node = 1;
  GpuSpec gpu = gpu_preset("A100-80GB");  // every GPU of the cluster (compute, memory)
  // What connects the GPUs of a node; it names the link below (its default rate comes
  // from fabric_link when a config leaves intra_node_gbps out).
  IntraNodeFabric intra_node_fabric = IntraNodeFabric::kNvlink;
  double intra_node_gbps = 1200.0;
  double intra_node_latency_s = 2e-6;
  double inter_node_gbps = 100.0;
  double inter_node_latency_s = 5e-6;
  // NICs per node, each of inter_node_gbps (star and fat-tree only when above 1; more
  // NICs than GPUs leave the extra ones idle), and whether they are rail-optimised.
  int nics_per_node = 1;
  bool rail_optimized = false;
  // Fraction of the nominal bandwidth that collectives achieve (calibrated,
  // docs/calibration.md); the platform's links run at gbps x efficiency.
  double intra_node_efficiency = 1.0;
  double inter_node_efficiency = 1.0;
  // What the collectives run on across and inside nodes (net_models/transport_profile.h):
  // a registry profile, possibly with fields replaced. Ethernet presets take tcp,
  // InfiniBand and DGX presets rdma.
  TransportProfile inter_node_transport = transport_profile("rdma");
  TransportProfile intra_node_transport = transport_profile("nvlink");
  Topology topology = Topology::kStar;

  // fat-tree: nodes under one leaf switch (0 = all nodes under one switch, a
  // star) and the bandwidth of each leaf's uplink to the core (0 = the NICs under
  // the leaf x inter_node_gbps / oversubscription); scaled by inter_node_efficiency
  // too. With rails, each (group of nodes_per_switch nodes, rail) has its own leaf;
  // in a star the rail switches' uplinks follow the same rule.
  int nodes_per_switch = 0;
  double uplink_gbps = 0.0;
  double oversubscription = 1.0;  // >= 1; only when uplink_gbps is 0
  // torus: dimensions whose product is `nodes` (empty = chosen automatically).
  std::vector<int> torus_dims;
  // dragonfly: groups (0 = chosen automatically); each group is one chassis of
  // routers with one node per router.
  int dragonfly_groups = 0;

  // SimGrid network model: "CM02" (no correction factors unless set below) or
  // "LV08" (SimGrid's default: latency x13.01, bandwidth x0.97, weight-S 20537).
  std::string network_model = "CM02";
  double latency_factor = 1.0;    // multiplies every route latency (CM02 only)
  double bandwidth_factor = 1.0;  // multiplies every link bandwidth (CM02 only)

  // Uncompressed allreduce of the step simulator: "auto" (the fastest predicted, as
  // NCCL's tuning picks) or an algorithm of sim/allreduce_algorithm.h ("ring", "tree"),
  // like NCCL_ALGO. Checked by the step simulator and the config readers.
  std::string allreduce_algorithm = "auto";
  // The NCCL version the cluster runs (net_models/nccl_version.h): with "auto" above it sets
  // how the algorithm is picked (sim/allreduce_selection.h: before 2.4 the ring only, 2.4 a
  // tree threshold, from 2.5 the tuning model). Empty: a current NCCL (the tuning model).
  std::string nccl_version;

  // Uncertainty of the effective bandwidths (net_models/bandwidth_spread.h, docs/calibration.md
  // "Spread"): the low and high predictions run every link of a class at its bandwidth x
  // the factor (low in 0.1..1, high in 1..10). 0: the default of the link class.
  double inter_node_spread_low = 0, inter_node_spread_high = 0;
  double intra_node_spread_low = 0, intra_node_spread_high = 0;
  std::string spread_source;  // where the factors above come from; empty: class defaults

  // When set, the platform comes from this SimGrid XML file; nodes and
  // gpus_per_node then say how its hosts (in name order) group into nodes.
  std::string platform_file;

  int gpus() const { return nodes * gpus_per_node; }
  // What one NIC link carries, Gbit/s: its line rate x inter_node_efficiency x the inter-node
  // transport's line_rate_share.
  double nic_effective_gbps() const {
    return inter_node_gbps * inter_node_efficiency * inter_node_transport.line_rate_share;
  }
  // Throws InvalidArgument naming the first bad field.
  void validate() const;
};

// torus_dims or an automatic near-cubic factorization of `nodes` (up to 3 dims).
std::vector<int> effective_torus_dims(const ClusterSpec& spec);
// dragonfly_groups or the divisor of `nodes` closest to sqrt(nodes).
int effective_dragonfly_groups(const ClusterSpec& spec);

// Sets `spec`'s intra-node fabric and, from its public figures for spec.gpu (fabric_link),
// the GPU link's rate, latency and NCCL efficiency, and the intra-node transport (pcie or
// nvlink). Throws InvalidArgument when no figure is known for the GPU.
void use_intra_node_fabric(ClusterSpec& spec, IntraNodeFabric fabric);

// Returns a copy of `spec` with `gpus` GPUs: same gpus_per_node, nodes = gpus /
// gpus_per_node (gpus < gpus_per_node gives one node of `gpus`). Throws
// InvalidArgument when gpus does not divide into whole nodes.
ClusterSpec with_gpus(const ClusterSpec& spec, int gpus);

}  // namespace compopt::net
