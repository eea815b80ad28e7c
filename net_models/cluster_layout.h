#pragma once
// ClusterLayout: the platform of a switched cluster (topology star or fat-tree) as plain
// data: split-duplex links, groups of GPU hosts behind one gateway, and the fabric route
// between any two groups. A group is a node, or with several NICs per node the GPUs of a
// node that share one NIC (so their inter-node flows take that NIC); groups of one node
// reach each other through the node's switch. net_models/platform_builder.h builds SimGrid
// zones from it and net_models/cluster_xml.h writes it as platform XML, so both carry the
// same links and routes (docs/simulator.md, "Platforms").

#include <cstddef>
#include <string>
#include <vector>

#include "net_models/cluster_spec.h"

namespace compopt::net {

inline constexpr double kHostFlops = 1e12;  // compute is charged with sleeps, not flops

struct LayoutLink {
  std::string name;
  double bytes_per_s = 0;
  double latency_s = 0;
  bool fatpipe = false;  // shared without contention (a node's switch between its NIC groups)
  int group = -1;        // the group whose zone holds it (a GPU link), -1: the fabric
  bool nic = false;      // a node's NIC (its receiving side follows the incast law)
};

struct LayoutGroup {
  std::string name, gateway;
  std::vector<std::string> hosts;  // in local-rank order
  std::vector<size_t> host_links;  // each host's link to the gateway
  int node = 0;
};

struct LinkHop {
  size_t link;
  bool up;  // the link's UP direction (away from the source side)
};

class ClusterLayout {
 public:
  // `spec` must be valid with topology star or fat-tree and no platform file. Hosts are
  // named node<n>-gpu<g>; padded, n and g have leading zeros so that name order is rank
  // order (a platform file's hosts are taken in name order).
  ClusterLayout(const ClusterSpec& spec, bool padded);

  // In creation order: per node its GPU links, NICs and (several NICs) switch; then the
  // leaf uplinks.
  const std::vector<LayoutLink>& links() const { return links_; }
  const std::vector<LayoutGroup>& groups() const { return groups_; }
  // Fabric links from group a's gateway to group b's (a != b).
  std::vector<LinkHop> route(size_t a, size_t b) const;
  // Group g's NIC link; the number of leaf switches. Every route between groups
  // of different nodes is NIC a up, (other leaf: uplink a up, uplink b down,) NIC b down.
  size_t nic_link(size_t group) const { return nic_of_group_[group]; }
  size_t leaf_count() const { return uplink_of_leaf_.size(); }

 private:
  void add_node(const ClusterSpec& spec, int node, bool padded);
  void add_uplinks(const ClusterSpec& spec);

  std::vector<LayoutLink> links_;
  std::vector<LayoutGroup> groups_;
  std::vector<size_t> nic_of_group_, leaf_of_group_, uplink_of_leaf_, switch_of_node_;
};

}  // namespace compopt::net
