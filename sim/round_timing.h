#pragma once
// Timing-only simulation of the step simulator's collectives by symmetry. A
// collective is a list of shift rounds: in round (shift k, bytes b) every rank r
// sends b real bytes to r + k and receives b from r - k, counted among all ranks,
// among the GPUs of r's node or among the same-local-index GPUs of all nodes
// (RoundScope). The ring allreduce is 2(n-1) rounds of shift 1, the pairwise
// all-to-all one round per shift 1..n-1, a ring all-gather n-1 rounds of shift 1;
// the hierarchical scheme is an intra-node ring reduce-scatter, the flat scheme's
// rounds across nodes and an intra-node ring all-gather. Identical rounds are
// simulated once, with all n flows starting together, and counted `repeat`
// times; no payload is computed. tests/sim checks the result against the real
// collectives (StepConfig::full_collectives). Each round names the phase of the
// collective it belongs to, as the collective code marks it (core/comm/phase_log.h).

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/phase_log.h"
#include "net_models/cluster_spec.h"
#include "sim/proxy_wire.h"

namespace compopt::sim {

// Which ranks a round's shift counts over.
enum class RoundScope {
  kWorld,      // all n ranks: r -> (r + k) mod n
  kIntraNode,  // the GPUs of r's node: local index l -> (l + k) mod gpus_per_node
  kInterNode,  // the same local index on every node: node q -> (q + k) mod nodes
};

struct ShiftRound {
  RoundScope scope = RoundScope::kWorld;
  int shift = 1;
  uint64_t real_bytes = 0;  // per message, before the wire map
  double repeat = 1;
  const char* phase = "";   // e.g. "reduce-scatter"; consecutive rounds may share one
  const char* parent = "";  // the phase enclosing `phase`, if any (a nested collective)
};

// Phase spans of rounds laid end to end: one per run of consecutive rounds of one
// phase, at depth 1 under their parent phase (if any), which is recorded after its
// children as PhaseScope does.
class RoundSpans {
 public:
  void add(const ShiftRound& round, double start_s, double end_s);
  // The spans, with the last parent closed.
  std::vector<PhaseSpan> finish();

 private:
  void close_parent();

  std::vector<PhaseSpan> spans_;
  std::string_view phase_, parent_;
  double parent_start_s_ = 0, end_s_ = 0;
};

// The rank that `rank` sends to in a round of `scope` and `shift` (a negative shift gives
// the rank it receives from), with `gpus_per_node` ranks on each of `nodes` nodes.
int round_peer(RoundScope scope, int shift, int rank, int nodes, int gpus_per_node);

// Whether `scheme` on `cluster` is timed by rounds: the ring on generated
// platforms, the flat compressed allreduce on a generated star or where the rounds
// collapse exactly (collapsed_rounds.h), the hierarchical scheme where they collapse. Elsewhere
// ranks drift apart across all-to-all rounds and only the full simulation is exact.
bool timed_by_rounds(CommScheme scheme, const net::ClusterSpec& cluster);

// The rounds of `scheme` on `proxy` elements over every GPU of `cluster`.
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
