#pragma once
// time_flows: the one place where the one-actor round timings (collapsed_rounds.h,
// flow_rounds.h) put traffic on the simulated network. Each flow is its own SimGrid
// communication, so link sharing sees every concurrent flow, and each is charged the
// transport mechanisms SimTransport charges a message (flow_costs.h): a sender's k-th
// message of the round starts after k message costs of its transport (its GPUs post one
// after another), and every flow is capped at its transport's flow rate. Call from
// inside an actor.

#include <simgrid/forward.h>

#include <cstdint>
#include <vector>

#include "net_models/cluster_spec.h"

namespace compopt::sim {

struct PlannedFlow {
  simgrid::s4u::Host* src = nullptr;
  simgrid::s4u::Host* dst = nullptr;
  uint64_t bytes = 0;  // simulated bytes
  int sender = 0;      // a key of the sending GPU (flows of one sender are posted in order)
  bool crosses_nodes = false;
};

// Starts the flows of one round as above from now; the time until the last one arrived.
double time_flows(const net::ClusterSpec& cluster, const std::vector<PlannedFlow>& flows);

}  // namespace compopt::sim
