#pragma once
// TransportProfile: the costs a transport adds to the links it runs on (docs/simulator.md,
// "Transport mechanisms"), one named profile per transport in a registry: `tcp` (kernel
// sockets: NCCL's socket transport and compopt's TCP backend), `rdma` (InfiniBand / RoCE
// verbs), `efa` (AWS EFA through NCCL's plugin), `nvlink` and `pcie` (CUDA IPC inside a
// node). A cluster takes one profile for its
// inter-node links and one for its intra-node links (ClusterSpec), each field replaceable.
// Each entry also names the link class its transport runs on (Ethernet, InfiniBand, GPU
// link), which sets the cluster's default bandwidth spread.
//
// Mechanisms: a per-message software cost charged to the sender before each message, a
// per-peer cost charged at the first message to each peer of a simulation, a per-flow rate
// cap (stream_gbps x streams_per_peer: one socket or queue pair stream, several per peer),
// the incast law: a receiving NIC with k concurrent incoming flows delivers
// capacity / (1 + incast_loss x max(0, k - incast_flows)), and the share of each NIC's line
// rate the transport's traffic reaches (line_rate_share, inter-node side: the NIC links run
// at rate x efficiency x share). Zero disables a mechanism; a share of 1 is none.

#include <string>
#include <string_view>
#include <vector>

#include "core/util/registry.h"

namespace compopt::net {

struct TransportProfile {
  std::string name = "custom";
  double message_overhead_s = 0;  // per message posted (syscall, proxy wake-up, copy setup)
  double peer_overhead_s = 0;     // per peer a rank sends to in one simulation
  double stream_gbps = 0;         // rate of one socket / QP stream; 0: no cap
  int streams_per_peer = 1;       // streams one flow is striped over
  int incast_flows = 0;           // incoming flows a NIC takes at full rate; 0: no incast law
  double incast_loss = 0;         // capacity lost per flow beyond incast_flows (fraction)
  double line_rate_share = 1;     // of a NIC's line rate, all its flows together, (0, 1]

  // The cap of one flow in Gbit/s, 0 when uncapped.
  double flow_cap_gbps() const { return stream_gbps * streams_per_peer; }
  // Whether the incast law changes a NIC's capacity.
  bool has_incast() const { return incast_flows > 0 && incast_loss > 0; }
  // Throws InvalidArgument naming `where` (e.g. "cluster 'x': inter_node_transport") and the
  // first bad field.
  void validate(const std::string& where) const;
};

// The receiving capacity (bytes/s) of a NIC of `capacity` with `flows` incoming flows under
// `profile`'s incast law.
double incast_capacity(const TransportProfile& profile, double capacity, int flows);

// The class of links a transport runs on: it picks the default bandwidth spread of a
// cluster that gives none (net_models/bandwidth_spread.h).
enum class LinkClass { kEthernet, kInfiniband, kGpuLink };

struct TransportEntry : RegistryEntry {
  TransportProfile profile;  // its `name` is the entry's canonical name
  LinkClass link_class = LinkClass::kGpuLink;
};

const Registry<TransportEntry>& transport_registry();
// The profile of a name or alias; throws InvalidArgument listing the known ones.
TransportProfile transport_profile(std::string_view name);

// One numeric field of a profile, by the name configs use (message_overhead_s, ...).
struct TransportField {
  const char* name;
  bool integer;  // a count: configs must give a whole number
  double (*get)(const TransportProfile&);
  void (*set)(TransportProfile&, double);
};
const std::vector<TransportField>& transport_fields();

}  // namespace compopt::net
