#pragma once
// FrameworkCollectives: how a training framework issues the collectives of the compressed
// allreduce (docs/simulator.md, "The compressed allreduce as the frameworks issue it"), as a
// registry. compopt's own collectives (core/comm/collectives/compressed_allreduce.cc) and the
// step simulator's rounds (round_timing.h) run each collective as lock-step rounds that end
// when their slowest message lands, so every round pays a whole hop's latency. The frameworks
// do not wait like that:
//   - an all-to-all issued as grouped sends and receives (NCCL) or as non-blocking gathers
//     posted together (MPI) keeps its peers in flight: the wire latency is paid once, while the
//     sender still posts every message (the transport's per-message cost stays serial);
//   - an all-gather run by NCCL is a pipelined ring: each hop's own latency, N-1 hops between
//     nodes and n-N inside them (ring_pipeline.h); MPI's blocking ring stays lock-step;
//   - DeepSpeed gathers the server's scale in a collective of its own, which compopt folds
//     into the server's message.
// framework_collectives_s turns the simulated lock-step time into the framework's time from
// those latencies alone; the bytes, and so the bandwidth part, are the same either way.

#include <string>
#include <string_view>
#include <vector>

#include "core/util/registry.h"
#include "net_models/cluster_spec.h"
#include "sim/proxy_wire.h"
#include "sim/ring_pipeline.h"

namespace compopt::sim {

// How one collective of the compressed allreduce is issued.
enum class CollectiveIssue {
  kLockStep,      // rounds one after the other, each ending with its slowest message
  kInFlight,      // every peer's message posted at once (grouped p2p, non-blocking gathers)
  kPipelined,     // NCCL's ring: chunks move on as they land, each hop's own latency
  kWithAllToAll,  // posted together with the all-to-all, in flight with it
  kNone,          // not issued (the server's scale travels in the server's message)
};

struct FrameworkCollectives : RegistryEntry {
  CollectiveIssue all_to_all = CollectiveIssue::kInFlight;      // the signs to their servers
  CollectiveIssue worker_scales = CollectiveIssue::kPipelined;  // codecs with a scale only
  CollectiveIssue server = CollectiveIssue::kPipelined;         // the server messages
  CollectiveIssue server_scale = CollectiveIssue::kNone;        // a separate scale gather
  std::string text;                                             // the calls, in words
  std::vector<std::string> sources;
};

const Registry<FrameworkCollectives>& framework_collectives_registry();
// The entry of a name or alias; throws InvalidArgument listing the known ones.
const FrameworkCollectives& framework_collectives(std::string_view name);

// What the correction needs besides the lock-step time.
struct LockStepShape {
  CommScheme scheme = CommScheme::kCompressedFlat;
  bool has_scale = false;  // the codec sends a 4-byte scale with each message
  RingHopLatency hop;      // a 1-byte round's time across nodes and inside a node
  double inter_node_message_s = 0, intra_node_message_s = 0;  // per-message send costs
};

// The compressed allreduce's time as `framework` issues it, from the simulated lock-step
// `lock_step_s` on `cluster` (never below 0). The flat scheme's collectives run over all n
// GPUs, the hierarchical scheme's over the N nodes (its intra-node ring rounds keep their
// time: every hop there has the same latency). Throws InvalidArgument for a ring scheme.
double framework_collectives_s(double lock_step_s, const FrameworkCollectives& framework,
                               const LockStepShape& shape, const net::ClusterSpec& cluster);

}  // namespace compopt::sim
