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
#include "sim/sim_transport.h"

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

}  // namespace

bool timed_by_rounds(CommScheme scheme, const net::ClusterSpec& cluster) {
  if (!cluster.platform_file.empty()) return false;
  if (scheme == CommScheme::kRing) return true;
  return scheme == CommScheme::kCompressedFlat && cluster.topology == net::Topology::kStar;
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
  // compressed_allreduce_messages: pairwise all-to-all of the bit chunks, ring
  // all-gather of the worker scales (if any), ring all-gather of server messages.
  const auto codec = make_compressor(compressor);
  const size_t chunk = proxy / un;
  std::vector<ShiftRound> rounds;
  std::map<ShiftPattern, size_t> seen;
  for (int k = 1; k < n; ++k) {
    const auto [it, fresh] = seen.emplace(star_pattern(k, cluster), rounds.size());
    if (!fresh) {
      rounds[it->second].repeat += 1;
      continue;
    }
    rounds.push_back({.shift = k,
                      .real_bytes = codec->payload_bytes(chunk),
                      .repeat = 1,
                      .phase = "all-to-all"});
  }
  if (codec->has_scale()) {
    rounds.push_back({.shift = 1, .real_bytes = 4, .repeat = steps, .phase = "all-gather scales"});
  }
  rounds.push_back(
      {.shift = 1, .real_bytes = codec->wire_bytes(chunk), .repeat = steps, .phase = "all-gather"});
  return rounds;
}

namespace {

// Simulates one round with all ranks starting together: its time (the slowest rank's)
// and this rank's wire traffic.
RoundTiming simulate_round(SimTransport& transport, int n, int r, const ShiftRound& round) {
  std::vector<std::byte> send(round.real_bytes, std::byte{0}), recv(round.real_bytes);
  transport.reset_wire_counters();
  transport.sync();
  const double start = transport.now();
  transport.sendrecv((r + round.shift) % n, kRoundChannel, send, (r - round.shift + n) % n,
                     kRoundChannel, recv);
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
  const double origin = transport.now();
  RoundTiming out, one;
  const ShiftRound* previous = nullptr;
  for (const ShiftRound& round : rounds) {
    if (previous == nullptr || previous->shift != round.shift ||
        previous->real_bytes != round.real_bytes) {
      one = simulate_round(transport, comm.size(), comm.rank(), round);
    }
    const double start = origin + out.seconds;
    out.bytes_sent += round.repeat * one.bytes_sent;
    out.inter_node_bytes += round.repeat * one.inter_node_bytes;
    out.seconds += round.repeat * one.seconds;
    if (log != nullptr && previous != nullptr && std::string_view(previous->phase) == round.phase) {
      log->extend_last(origin + out.seconds);
    } else if (log != nullptr) {
      log->add({.name = round.phase, .start_s = start, .end_s = origin + out.seconds});
    }
    previous = &round;
  }
  transport.reset_wire_counters();
  return out;
}

}  // namespace compopt::sim
