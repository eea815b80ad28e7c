#include "sim/flow_costs.h"

namespace compopt::sim {

const net::TransportProfile& transport_between(const net::ClusterSpec& cluster,
                                               bool crosses_nodes) {
  return crosses_nodes ? cluster.inter_node_transport : cluster.intra_node_transport;
}

double send_overhead_s(const net::TransportProfile& profile, int messages, int new_peers) {
  return messages * profile.message_overhead_s + new_peers * profile.peer_overhead_s;
}

double flow_rate_cap(const net::TransportProfile& profile) {
  return profile.flow_cap_gbps() * 1e9 / 8.0;
}

}  // namespace compopt::sim
