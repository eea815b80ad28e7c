#include "net_models/transport_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace compopt::net {

namespace {

constexpr double kMaxOverheadS = 1.0;  // a second per message is no transport
constexpr double kMaxStreamGbps = 1e5;
constexpr int kMaxStreams = 64;  // NCCL's socket transport opens at most 64 per connection
constexpr int kMaxFlows = 1 << 20;

void check_range(double value, double lo, double hi, const char* field, const std::string& where,
                 const char* why) {
  if (!(value >= lo && value <= hi)) {
    throw InvalidArgument(
        fmt::format("{}: {} = {}, expected {}..{} ({})", where, field, value, lo, hi, why));
  }
}

// Sources and measurements of every figure: docs/calibration.md, "Transport profiles".
Registry<TransportEntry> make_registry() {
  Registry<TransportEntry> r("transport");
  // Per message: compopt's TCP backend between network namespaces on this machine
  // (small-message ring allreduce, docs/calibration.md). One socket per peer: NCCL's socket
  // transport without NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD outside AWS and GCP,
  // and compopt's TCP backend. A stream's rate depends on the hosts: none by default.
  // Per peer: 0, measured (experiments/validation/netns_peer_cost.sh): talking to n-1 peers instead
  // of 1 in the same steps costs nothing distinguishable from 0; compopt's backend connects every
  // peer at rendezvous (NCCL in a connect phase of its own), so steps pay no connection set-up.
  r.add({{"tcp", {"socket"}, "kernel TCP sockets (NCCL socket transport, compopt tcp)"},
         {.name = "tcp", .message_overhead_s = 38e-6, .peer_overhead_s = 0},
         LinkClass::kEthernet});
  // No per-message software figure found: the NIC's message rate (ConnectX-6: 215 million
  // messages/s) is pipelined throughput, not a serial cost to the sender. One queue pair
  // streams at line rate. No per-peer figure (queue-pair state in the NIC's cache) found.
  r.add({{"rdma", {"infiniband", "roce"}, "RDMA verbs over InfiniBand or RoCE"},
         {.name = "rdma"},
         LinkClass::kInfiniband});
  // AWS EFA through NCCL's aws-ofi-nccl plugin: a NIC carries 0.6 of its line rate, what a
  // 100 Gbit/s EFA NIC carried in a published ring run (NVIDIA/nccl-tests#22: ring busbw 60
  // Gbit/s on 2 p3dn.24xlarge; NVIDIA/nccl#235: 50-60 Gbit/s on 8 to 32 nodes;
  // data/published/collective_rates_public.csv). Ethernet underneath (SRD).
  r.add({{"efa", {"aws-efa"}, "AWS Elastic Fabric Adapter (NCCL's aws-ofi-nccl plugin)"},
         {.name = "efa", .line_rate_share = 0.6},
         LinkClass::kEthernet});
  r.add({{"nvlink", {"nvswitch"}, "CUDA IPC over NVLink / NVSwitch inside a node"},
         {.name = "nvlink"},
         LinkClass::kGpuLink});
  r.add({{"pcie", {}, "CUDA IPC over PCIe inside a node"}, {.name = "pcie"}, LinkClass::kGpuLink});
  return r;
}

}  // namespace

void TransportProfile::validate(const std::string& where) const {
  check_range(message_overhead_s, 0, kMaxOverheadS, "message_overhead_s", where,
              "seconds of software cost per message");
  check_range(peer_overhead_s, 0, kMaxOverheadS, "peer_overhead_s", where,
              "seconds of software cost per peer");
  check_range(stream_gbps, 0, kMaxStreamGbps, "stream_gbps", where,
              "Gbit/s of one socket or queue pair stream, 0 for no cap");
  check_range(streams_per_peer, 1, kMaxStreams, "streams_per_peer", where,
              "sockets or queue pairs one flow is striped over");
  check_range(incast_flows, 0, kMaxFlows, "incast_flows", where,
              "incoming flows a NIC takes at full rate, 0 for no incast law");
  check_range(incast_loss, 0, 1, "incast_loss", where,
              "fraction of the NIC's capacity lost per extra incoming flow");
  if (!(line_rate_share > 0 && line_rate_share <= 1)) {
    throw InvalidArgument(fmt::format(
        "{}: line_rate_share = {}, expected above 0 and at most 1 (the share of a NIC's line rate "
        "the transport reaches)",
        where, line_rate_share));
  }
}

double incast_capacity(const TransportProfile& profile, double capacity, int flows) {
  if (!profile.has_incast()) return capacity;
  const int extra = std::max(0, flows - profile.incast_flows);
  return capacity / (1 + profile.incast_loss * extra);
}

const Registry<TransportEntry>& transport_registry() {
  static const Registry<TransportEntry> registry = make_registry();
  return registry;
}

TransportProfile transport_profile(std::string_view name) {
  return transport_registry().get(name).profile;
}

const std::vector<TransportField>& transport_fields() {
  static const std::vector<TransportField> fields = {
      {"message_overhead_s", false, [](const TransportProfile& p) { return p.message_overhead_s; },
       [](TransportProfile& p, double v) { p.message_overhead_s = v; }},
      {"peer_overhead_s", false, [](const TransportProfile& p) { return p.peer_overhead_s; },
       [](TransportProfile& p, double v) { p.peer_overhead_s = v; }},
      {"stream_gbps", false, [](const TransportProfile& p) { return p.stream_gbps; },
       [](TransportProfile& p, double v) { p.stream_gbps = v; }},
      {"streams_per_peer", true,
       [](const TransportProfile& p) { return static_cast<double>(p.streams_per_peer); },
       [](TransportProfile& p, double v) {
         p.streams_per_peer = static_cast<int>(std::lround(v));
       }},
      {"incast_flows", true,
       [](const TransportProfile& p) { return static_cast<double>(p.incast_flows); },
       [](TransportProfile& p, double v) { p.incast_flows = static_cast<int>(std::lround(v)); }},
      {"incast_loss", false, [](const TransportProfile& p) { return p.incast_loss; },
       [](TransportProfile& p, double v) { p.incast_loss = v; }},
      {"line_rate_share", false, [](const TransportProfile& p) { return p.line_rate_share; },
       [](TransportProfile& p, double v) { p.line_rate_share = v; }},
  };
  return fields;
}

}  // namespace compopt::net
