#pragma once
// Turns a ClusterSpec into a SimGrid platform inside the current s4u::Engine
// (which must exist and hold no platform yet): network-model configuration,
// one star zone per node (GPU hosts around a node switch) inside a single
// top-level zone for the inter-node fabric, so zones are never nested more than
// two levels deep (SimGrid 3.32 misroutes deeper hierarchies). Or loads the
// spec's platform XML. Throws InvalidArgument for an invalid spec or a malformed
// or too small platform file.

#include <simgrid/forward.h>

#include <vector>

#include "net_models/cluster_spec.h"

namespace compopt::net {

struct PlatformHosts {
  // GPU hosts of node n, in local-rank order.
  std::vector<std::vector<simgrid::s4u::Host*>> by_node;
};

PlatformHosts build_platform(const ClusterSpec& spec);

}  // namespace compopt::net
