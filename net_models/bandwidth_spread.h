#pragma once
// The uncertainty of a cluster's effective bandwidths: low and high factors per link class
// (between nodes, inside a node) that the low and high predictions of `compopt profile` and
// `compopt sweep` run at, and where they come from (docs/calibration.md, "Spread").
//
// A cluster gives its factors in ClusterSpec (inter_node_spread_low/high,
// intra_node_spread_low/high, spread_source; the paper presets take theirs from the
// published rows); a factor left at 0 takes the default of its link class, which the
// side's transport names (TransportEntry::link_class, net_models/transport_profile.cc):
//   Ethernet/TCP     (transport tcp)           the ethernet-v100-4 preset's spread
//   InfiniBand/RDMA  (transport rdma)          the infiniband-v100-8 preset's spread
//   GPU link         (transports nvlink, pcie) +-10%, an assumption: each paper cluster has
//                                              one single-node row

#include <string>

#include "net_models/cluster_spec.h"

namespace compopt::net {

struct BandwidthSpread {
  double low = 1, high = 1;  // factors on the effective bandwidth, low <= 1 <= high
};

struct LinkSpreads {
  BandwidthSpread inter_node, intra_node;
  std::string source;  // one line naming where each class's factors come from
  // Where each class's factors come from (the parts of `source`).
  std::string inter_node_source, intra_node_source;
};

// The spec's factors with the class defaults filled in. A cluster from a platform file has
// no link classes: factors 1, and the source says so. Throws InvalidArgument naming a
// transport that is not in the registry.
LinkSpreads link_spreads(const ClusterSpec& spec);

// `spec` with every inter-node link (NICs, uplinks) at `inter_factor` times its bandwidth and
// every GPU link at `intra_factor` times its own; efficiencies and latencies unchanged. A
// scaled rate beyond the range ClusterSpec::validate takes (1 Mbit/s .. 100 Tbit/s) is held
// at its edge, so a cluster at the edge has a one-sided range.
ClusterSpec with_scaled_bandwidth(const ClusterSpec& spec, double inter_factor,
                                  double intra_factor);

}  // namespace compopt::net
