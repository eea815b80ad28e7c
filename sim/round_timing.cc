#include "sim/round_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

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
    return {{.shift = 1, .real_bytes = bytes, .repeat = 2 * steps}};
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
    rounds.push_back({.shift = k, .real_bytes = codec->payload_bytes(chunk), .repeat = 1});
  }
  if (codec->has_scale()) rounds.push_back({.shift = 1, .real_bytes = 4, .repeat = steps});
  rounds.push_back({.shift = 1, .real_bytes = codec->wire_bytes(chunk), .repeat = steps});
  return rounds;
}

RoundTiming simulate_rounds(Communicator& comm, const std::vector<ShiftRound>& rounds) {
  SimTransport& transport = SimTransport::of(comm);
  const int n = comm.size(), r = comm.rank();
  RoundTiming out;
  std::vector<std::byte> send, recv;
  for (const ShiftRound& round : rounds) {
    send.assign(round.real_bytes, std::byte{0});
    recv.resize(round.real_bytes);
    transport.reset_wire_counters();
    transport.sync();
    const double start = transport.now();
    transport.sendrecv((r + round.shift) % n, kRoundChannel, send, (r - round.shift + n) % n,
                       kRoundChannel, recv);
    out.bytes_sent += round.repeat * transport.wire_bytes_sent();
    out.inter_node_bytes += round.repeat * transport.wire_inter_node_bytes_sent();
    transport.sync();
    // All ranks started together and the sync costs nothing: now is the last finish.
    out.seconds += round.repeat * (transport.now() - start);
  }
  transport.reset_wire_counters();
  return out;
}

}  // namespace compopt::sim
