#include "sim/round_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>

#include "core/comm/phase_log.h"
#include "core/compress/compressor.h"
#include "core/util/error.h"
#include "sim/backend/sim_transport.h"
#include "sim/collapsed_rounds.h"

namespace compopt::sim {

namespace {

// Channel of the timing rounds; no other traffic runs during them.
constexpr Channel kRoundChannel = 0x7f000001u;

// Per GPU of node 0: (source GPU, destination GPU, crosses nodes) of shift k.
using ShiftPattern = std::vector<std::tuple<int, int, bool>>;

ShiftPattern star_pattern(int shift, const net::ClusterSpec& cluster) {
  const int n = cluster.gpus(), g = cluster.gpus_per_node;
  ShiftPattern out;
  for (int r = 0; r < g; ++r) {
    const int dst = (r + shift) % n;
    out.emplace_back(r, dst % g, dst / g != 0);
  }
  return out;
}

// compressed_allreduce_messages over `ranks` (n, or the nodes): pairwise all-to-all of
// the bit chunks (one round per distinct pattern), ring all-gather of the worker scales
// (if any), ring all-gather of the server messages.
void add_compressed_rounds(const Compressor& codec, size_t chunk, RoundScope scope, int ranks,
                           const net::ClusterSpec& cluster, std::vector<ShiftRound>& rounds) {
  // Across nodes, the rounds are the inter-node part of the hierarchical scheme.
  const char* parent = scope == RoundScope::kInterNode ? "inter-node compressed allreduce" : "";
  const double steps = ranks - 1;
  std::map<ShiftPattern, size_t> seen;
  for (int k = 1; k < ranks; ++k) {
    const ShiftPattern pattern =
        scope == RoundScope::kWorld ? star_pattern(k, cluster) : ShiftPattern{};  // all cross nodes
    const auto [it, fresh] = seen.emplace(pattern, rounds.size());
    if (!fresh) {
      rounds[it->second].repeat += 1;
      continue;
    }
    rounds.push_back({.scope = scope,
                      .shift = k,
                      .real_bytes = codec.payload_bytes(chunk),
                      .repeat = 1,
                      .phase = "all-to-all",
                      .parent = parent});
  }
  if (codec.has_scale()) {
    rounds.push_back({.scope = scope,
                      .shift = 1,
                      .real_bytes = 4,
                      .repeat = steps,
                      .phase = "all-gather scales",
                      .parent = parent});
  }
  rounds.push_back({.scope = scope,
                    .shift = 1,
                    .real_bytes = codec.wire_bytes(chunk),
                    .repeat = steps,
                    .phase = "all-gather",
                    .parent = parent});
}

std::vector<ShiftRound> flat_rounds(std::string_view compressor, size_t proxy,
                                    const net::ClusterSpec& cluster) {
  std::vector<ShiftRound> rounds;
  const int n = cluster.gpus();
  add_compressed_rounds(*make_compressor(compressor), proxy / static_cast<size_t>(n),
                        RoundScope::kWorld, n, cluster, rounds);
  return rounds;
}

// hierarchical_compressed_allreduce_mean: fp32 ring reduce-scatter of the proxy inside
// the node, the compressed allreduce of each shard across nodes (chunks of proxy / n
// elements), ring all-gather of the node count's server messages inside the node.
std::vector<ShiftRound> hierarchical_rounds(std::string_view compressor, size_t proxy,
                                            const net::ClusterSpec& cluster) {
  const auto codec = make_compressor(compressor);
  const int g = cluster.gpus_per_node, nodes = cluster.nodes;
  const size_t chunk = proxy / static_cast<size_t>(cluster.gpus());
  std::vector<ShiftRound> rounds;
  if (g > 1) {
    rounds.push_back({.scope = RoundScope::kIntraNode,
                      .shift = 1,
                      .real_bytes = 4 * (proxy / static_cast<size_t>(g)),
                      .repeat = g - 1.0,
                      .phase = "intra-node reduce-scatter"});
  }
  if (nodes > 1)
    add_compressed_rounds(*codec, chunk, RoundScope::kInterNode, nodes, cluster, rounds);
  if (g > 1) {
    rounds.push_back({.scope = RoundScope::kIntraNode,
                      .shift = 1,
                      .real_bytes = static_cast<uint64_t>(nodes) * codec->wire_bytes(chunk),
                      .repeat = g - 1.0,
                      .phase = "intra-node all-gather"});
  }
  return rounds;
}

}  // namespace

void RoundSpans::close_parent() {
  if (!parent_.empty()) {
    spans_.push_back({.name = std::string(parent_), .start_s = parent_start_s_, .end_s = end_s_});
  }
}

void RoundSpans::add(const ShiftRound& round, double start_s, double end_s) {
  const bool new_parent = spans_.empty() || parent_ != round.parent;
  if (new_parent) {
    close_parent();
    parent_start_s_ = start_s;
  }
  if (!new_parent && phase_ == round.phase) {
    spans_.back().end_s = end_s;
  } else {
    spans_.push_back({.name = round.phase,
                      .depth = *round.parent != '\0' ? 1 : 0,
                      .start_s = start_s,
                      .end_s = end_s});
  }
  phase_ = round.phase;
  parent_ = round.parent;
  end_s_ = end_s;
}

std::vector<PhaseSpan> RoundSpans::finish() {
  close_parent();
  parent_ = {};
  return std::move(spans_);
}

int round_peer(RoundScope scope, int shift, int rank, int nodes, int gpus_per_node) {
  const int node = rank / gpus_per_node, local = rank % gpus_per_node;
  auto wrap = [](int value, int modulus) { return ((value % modulus) + modulus) % modulus; };
  switch (scope) {
    case RoundScope::kWorld:
      return wrap(rank + shift, nodes * gpus_per_node);
    case RoundScope::kIntraNode:
      return node * gpus_per_node + wrap(local + shift, gpus_per_node);
    case RoundScope::kInterNode:
      return wrap(node + shift, nodes) * gpus_per_node + local;
  }
  return rank;
}

bool timed_by_rounds(CommScheme scheme, const net::ClusterSpec& cluster) {
  if (!cluster.platform_file.empty()) return false;
  switch (scheme) {
    case CommScheme::kRing:
      return true;
    case CommScheme::kCompressedFlat:
      return cluster.topology == net::Topology::kStar || collapsible(cluster);
    case CommScheme::kCompressedHierarchical:
      return collapsible(cluster);
  }
  return false;
}

std::vector<ShiftRound> collective_rounds(CommScheme scheme, std::string_view compressor,
                                          size_t proxy, int wire_bytes_per_value,
                                          const net::ClusterSpec& cluster) {
  if (!timed_by_rounds(scheme, cluster)) {
    throw InvalidArgument("collective_rounds: this scheme and platform need the full simulation");
  }
  const int n = cluster.gpus();
  if (n < 2) return {};
  const auto un = static_cast<size_t>(n);
  const double steps = n - 1;
  if (scheme == CommScheme::kRing) {
    // ring_allreduce: reduce-scatter and all-gather of equal blocks (proxy is a multiple of 8n).
    const auto bytes = static_cast<uint64_t>(wire_bytes_per_value) * (proxy / un);
    return {{.shift = 1, .real_bytes = bytes, .repeat = steps, .phase = "reduce-scatter"},
            {.shift = 1, .real_bytes = bytes, .repeat = steps, .phase = "all-gather"}};
  }
  if (scheme == CommScheme::kCompressedHierarchical) {
    return hierarchical_rounds(compressor, proxy, cluster);
  }
  return flat_rounds(compressor, proxy, cluster);
}

namespace {

// Simulates one round with all ranks starting together: its time (the slowest rank's)
// and this rank's wire traffic.
RoundTiming simulate_round(SimTransport& transport, int r, int nodes, int per_node,
                           const ShiftRound& round) {
  std::vector<std::byte> send(round.real_bytes, std::byte{0}), recv(round.real_bytes);
  transport.reset_wire_counters();
  transport.sync();
  const double start = transport.now();
  transport.sendrecv(round_peer(round.scope, round.shift, r, nodes, per_node), kRoundChannel, send,
                     round_peer(round.scope, -round.shift, r, nodes, per_node), kRoundChannel,
                     recv);
  RoundTiming out{.bytes_sent = static_cast<double>(transport.wire_bytes_sent()),
                  .inter_node_bytes = static_cast<double>(transport.wire_inter_node_bytes_sent())};
  transport.sync();
  // All ranks started together and the sync costs nothing: now is the last finish.
  out.seconds = transport.now() - start;
  return out;
}

}  // namespace

RoundTiming simulate_rounds(Communicator& comm, const std::vector<ShiftRound>& rounds) {
  SimTransport& transport = SimTransport::of(comm);
  PhaseLog* log = comm.phase_log();
  const int nodes = comm.node_of(comm.size() - 1) + 1;
  const double origin = transport.now();
  RoundTiming out, one;
  const ShiftRound* previous = nullptr;
  RoundSpans spans;
  for (const ShiftRound& round : rounds) {
    if (previous == nullptr || previous->scope != round.scope || previous->shift != round.shift ||
        previous->real_bytes != round.real_bytes) {
      one = simulate_round(transport, comm.rank(), nodes, comm.size() / nodes, round);
    }
    const double start = origin + out.seconds;
    out.bytes_sent += round.repeat * one.bytes_sent;
    out.inter_node_bytes += round.repeat * one.inter_node_bytes;
    out.seconds += round.repeat * one.seconds;
    spans.add(round, start, origin + out.seconds);
    previous = &round;
  }
  if (log != nullptr) {
    for (PhaseSpan& span : spans.finish()) log->add(std::move(span));
  }
  transport.reset_wire_counters();
  return out;
}

}  // namespace compopt::sim
