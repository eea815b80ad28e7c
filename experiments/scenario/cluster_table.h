#pragma once
// The [cluster] table of a sweep or profile config: a preset, a preset with some fields
// changed, or a cluster described in full (docs/simulator.md, "Describe any cluster"):
//
//   preset = "dgx-h100"        base preset (default: `name` if it is a preset, else a new
//                              cluster from net::ClusterSpec's plain defaults, efficiencies
//                              1, never another preset's fitted values; profile's --cluster
//                              names the base of a table without either)
//   name                       the cluster's name (default: the preset's)
//   gpu = "H100"               GPU preset, or a [cluster.gpu] table: preset (base), name,
//                              fp32/tf32/fp16/bf16/fp8_tflops, hbm_gb, hbm_gbps,
//                              max_utilization (every precision), tensor_max_utilization
//                              (fp16/bf16/fp8), layer_overhead_s (a --set key under a GPU
//                              given by name starts from that preset, config_overrides.h)
//   nodes, gpus_per_node (0 = the preset's), nics_per_node        integers
//   intra_node_fabric          pcie | nvlink | nvswitch: sets intra_node_gbps and
//                              intra_node_latency_s for the GPU unless those keys are given
//   intra_node_gbps, intra_node_latency_s, inter_node_gbps, inter_node_latency_s,
//   intra_node_efficiency, inter_node_efficiency, rail_optimized (bool)
//   topology                   star | fat-tree | torus | dragonfly, with nodes_per_switch,
//                              uplink_gbps, oversubscription, torus_dims (array),
//                              dragonfly_groups
//   network_model, latency_factor, bandwidth_factor, platform (a SimGrid platform XML)
//   allreduce_algorithm        auto | ring | tree (sim/allreduce_algorithm.h)
//   inter_node_transport, intra_node_transport    tcp | rdma | nvlink | pcie (the fabric
//                              sets the intra-node one), and per side <side>_<field> for
//                              message_overhead_s, peer_overhead_s, stream_gbps,
//                              streams_per_peer, incast_flows, incast_loss
//
// Unknown keys, wrong types and bad values throw InvalidArgument naming the key.

#include <toml++/toml.h>

#include <set>
#include <string>

#include "net_models/cluster_spec.h"

namespace compopt::cli {

// The keys a [cluster] table accepts (for the config's key check).
const std::set<std::string>& cluster_config_keys();

// One output line saying what `cluster` starts from: "cluster: preset X", "cluster: built on
// preset X ..." when `described` (a [cluster] table or --set keys changed it), or "cluster:
// described by its keys, from the plain defaults ..." when no preset is its base.
std::string cluster_origin(const net::ClusterSpec& cluster, bool described);

// The cluster a [cluster] table describes, validated.
net::ClusterSpec cluster_from_config(const toml::table& cluster_table);

// The [cluster] table of the TOML file at `path` (other tables ignored), validated. Throws
// InvalidArgument naming the file for a missing file, a parse error or no [cluster] table.
net::ClusterSpec cluster_from_file(const std::string& path);

}  // namespace compopt::cli
