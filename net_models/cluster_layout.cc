#include "net_models/cluster_layout.h"

#include <fmt/format.h>

namespace compopt::net {

namespace {

double bytes_per_s(double gbps) { return gbps * 1e9 / 8.0; }

// Fast enough to never limit a flow: the top of ClusterSpec's link rates.
constexpr double kSwitchGbps = 1e5;

// `value` in decimal; padded, with leading zeros to the width of `last`.
std::string number(int value, int last, bool padded) {
  std::string digits = std::to_string(value);
  const size_t width = std::to_string(last).size();
  if (padded && digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

int nodes_per_leaf(const ClusterSpec& spec) {
  return spec.topology == Topology::kFatTree && spec.nodes_per_switch > 0 ? spec.nodes_per_switch
                                                                          : spec.nodes;
}

int leaves_per_group(const ClusterSpec& spec) {
  return spec.rail_optimized ? spec.nics_per_node : 1;
}

}  // namespace

ClusterLayout::ClusterLayout(const ClusterSpec& spec, bool padded) {
  for (int n = 0; n < spec.nodes; ++n) add_node(spec, n, padded);
  add_uplinks(spec);
}

// The node's GPUs grouped by NIC (GPU g uses NIC g x k / gpus_per_node), their GPU links,
// one NIC link per group and, with several groups, the node's switch between them.
void ClusterLayout::add_node(const ClusterSpec& spec, int node, bool padded) {
  const int k = spec.nics_per_node, gpus = spec.gpus_per_node;
  const std::string name = "node" + number(node, spec.nodes - 1, padded);
  const size_t first = groups_.size();
  std::vector<int> nic_of;  // per group of this node
  for (int g = 0; g < gpus; ++g) {
    const int nic = static_cast<int>(static_cast<long>(g) * k / gpus);
    if (nic_of.empty() || nic_of.back() != nic) {
      nic_of.push_back(nic);
      LayoutGroup group;
      group.name = k == 1 ? name : fmt::format("{}-nic{}", name, number(nic, k - 1, padded));
      group.gateway = group.name + "-switch";
      group.node = node;
      groups_.push_back(group);
    }
    LayoutGroup& group = groups_.back();
    const std::string host = fmt::format("{}-gpu{}", name, number(g, gpus - 1, padded));
    group.hosts.push_back(host);
    group.host_links.push_back(links_.size());
    links_.push_back({host + "-link",
                      bytes_per_s(spec.intra_node_gbps * spec.intra_node_efficiency),
                      spec.intra_node_latency_s / 2, false, static_cast<int>(groups_.size() - 1)});
  }
  const int leaf_base = node / nodes_per_leaf(spec) * leaves_per_group(spec);
  for (size_t i = 0; i < nic_of.size(); ++i) {
    nic_of_group_.push_back(links_.size());
    leaf_of_group_.push_back(
        static_cast<size_t>(leaf_base + (spec.rail_optimized ? nic_of[i] : 0)));
    links_.push_back({k == 1 ? name + "-nic" : groups_[first + i].name + "-link",
                      bytes_per_s(spec.nic_effective_gbps()), spec.inter_node_latency_s / 2, false,
                      -1, true});
  }
  switch_of_node_.push_back(links_.size());
  if (nic_of.size() > 1)
    links_.push_back({name + "-switch", bytes_per_s(kSwitchGbps), 0, true, -1});
}

// One uplink per leaf switch: uplink_gbps, or the NICs under the leaf at inter_node_gbps
// over the oversubscription ratio.
void ClusterLayout::add_uplinks(const ClusterSpec& spec) {
  const int per_leaf = nodes_per_leaf(spec);
  const int nics_per_leaf = per_leaf * (spec.rail_optimized ? 1 : spec.nics_per_node);
  const double gbps = spec.uplink_gbps > 0
                          ? spec.uplink_gbps
                          : nics_per_leaf * spec.inter_node_gbps / spec.oversubscription;
  const int leaves = spec.nodes / per_leaf * leaves_per_group(spec);
  for (int s = 0; s < leaves; ++s) {
    uplink_of_leaf_.push_back(links_.size());
    links_.push_back({fmt::format("leaf{}-uplink", s),
                      bytes_per_s(gbps * spec.inter_node_efficiency), spec.inter_node_latency_s / 2,
                      false, -1});
  }
}

std::vector<LinkHop> ClusterLayout::route(size_t a, size_t b) const {
  if (groups_[a].node == groups_[b].node) {
    return {{switch_of_node_[static_cast<size_t>(groups_[a].node)], true}};
  }
  std::vector<LinkHop> hops = {{nic_of_group_[a], true}};
  if (leaf_of_group_[a] != leaf_of_group_[b]) {
    hops.push_back({uplink_of_leaf_[leaf_of_group_[a]], true});
    hops.push_back({uplink_of_leaf_[leaf_of_group_[b]], false});
  }
  hops.push_back({nic_of_group_[b], false});
  return hops;
}

}  // namespace compopt::net
