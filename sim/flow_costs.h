#pragma once
// The per-flow transport costs of the simulator (docs/simulator.md, "Transport
// mechanisms"), as plain functions of a cluster's transport profiles so that every way of
// simulating a collective charges the same: the profile a message between two ranks runs
// on, the software time a sender spends posting messages and opening peers, and the rate
// cap of one flow. SimTransport applies them to each message; the incast law lives on the
// NIC links themselves (net_models/platform_builder.cc).

#include "net_models/cluster_spec.h"
#include "net_models/transport_profile.h"

namespace compopt::sim {

// The inter-node profile when the message crosses nodes, else the intra-node one.
const net::TransportProfile& transport_between(const net::ClusterSpec& cluster, bool crosses_nodes);

// Seconds a sender spends before `messages` messages to `new_peers` peers it has not sent
// to before: messages x message_overhead_s + new_peers x peer_overhead_s.
double send_overhead_s(const net::TransportProfile& profile, int messages, int new_peers);

// The rate cap of one flow in bytes/s (stream_gbps x streams_per_peer), 0 when uncapped.
double flow_rate_cap(const net::TransportProfile& profile);

}  // namespace compopt::sim
