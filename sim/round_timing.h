#pragma once
// Timing-only simulation of the step simulator's collectives by symmetry. A
// collective is a list of shift rounds: in round (shift k, bytes b) every rank r
// sends b real bytes to r + k and receives b from r - k (mod n). The ring
// allreduce is 2(n-1) rounds of shift 1, the pairwise all-to-all one round per
// shift 1..n-1, a ring all-gather n-1 rounds of shift 1. Identical rounds are
// simulated once, with all n flows starting together, and counted `repeat`
// times; no payload is computed. tests/sim checks the result against the real
// collectives (StepConfig::full_collectives). Each round names the phase of the
// collective it belongs to, as the collective code marks it (core/comm/phase_log.h).

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/comm/communicator.h"
#include "net_models/cluster_spec.h"
#include "sim/proxy_wire.h"

namespace compopt::sim {

struct ShiftRound {
  int shift = 1;
  uint64_t real_bytes = 0;  // per message, before the wire map
  double repeat = 1;
  const char* phase = "";  // e.g. "reduce-scatter"; consecutive rounds may share one
};

// Whether `scheme` on `cluster` is timed by rounds: the ring on generated
// platforms, the flat compressed allreduce on a generated star. Elsewhere ranks
// drift apart across all-to-all rounds and only the full simulation is exact.
bool timed_by_rounds(CommScheme scheme, const net::ClusterSpec& cluster);

// The rounds of `scheme` (kRing or kCompressedFlat; throws InvalidArgument for
// kCompressedHierarchical) on `proxy` elements over every GPU of `cluster`.
// `wire_bytes_per_value` is 2 (fp16) or 4 (fp32) for the ring; `compressor`
// names the codec of the compressed scheme. All-to-all shifts whose flows load
// the links alike are merged: rounds with the same (source GPU, destination
// GPU, crosses nodes) pattern per node. Throws InvalidArgument unless
// timed_by_rounds(scheme, cluster).
std::vector<ShiftRound> collective_rounds(CommScheme scheme, std::string_view compressor,
                                          size_t proxy, int wire_bytes_per_value,
                                          const net::ClusterSpec& cluster);

struct RoundTiming {
  double seconds = 0;           // sum over rounds of repeat x slowest rank's time
  double bytes_sent = 0;        // this rank's simulated bytes (after the wire map)
  double inter_node_bytes = 0;  // of which across nodes
};

// Called by every rank inside run_sim, with the wire map already set. A round equal
// to the one before it (shift and bytes) reuses its simulated time. With a PhaseLog
// attached to `comm`, records one span per run of consecutive rounds of one phase,
// laid end to end from now() at the call.
RoundTiming simulate_rounds(Communicator& comm, const std::vector<ShiftRound>& rounds);

}  // namespace compopt::sim
