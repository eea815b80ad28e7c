#pragma once
// The SimGrid platform XML (version 4.1) of a generated cluster: the links and routes of
// its ClusterLayout, so that loading the file as the cluster's platform file (same nodes
// and gpus_per_node) simulates exactly what the generated platform does. Groups are Full
// zones with explicit host routes (SimGrid's XML has no star zones), hosts are named so
// that name order is rank order. The network model and its factors are not in the file:
// they come from the cluster spec that loads it (network_model, latency_factor,
// bandwidth_factor). Torus and dragonfly clusters (SimGrid cluster zones with a node zone
// at each leaf) and clusters that already come from a platform file throw InvalidArgument.

#include <string>

#include "net_models/cluster_spec.h"

namespace compopt::net {

std::string platform_xml(const ClusterSpec& spec);

}  // namespace compopt::net
