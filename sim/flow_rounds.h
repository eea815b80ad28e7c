#pragma once
// Timing of collectives given as explicit flows (allreduce_algorithm.h): a round is a
// set of flows (source GPU, destination GPU, simulated bytes) that all start
// together; the round lasts until the last flow arrives, and the next round starts
// after it. Used for patterns that are not one shift per round (several ring
// channels, NCCL's double binary tree), where round_timing.h's shift rounds do not
// apply. Flows of one round between the same pair of GPUs must be merged by the
// caller (one message per pair and round). One actor posts every flow of a round at
// once through time_flows (flow_post.h) on the whole cluster's platform, so a GPU's
// incoming flows share its links from the start and no actor per GPU is needed. No
// payload is sent; the wire map does not apply (flows carry simulated bytes).

#include <vector>

#include "core/comm/phase_log.h"
#include "net_models/cluster_spec.h"

namespace compopt::sim {

struct Flow {
  int src = 0, dst = 0;
  double bytes = 0;  // simulated bytes on the wire
  bool operator==(const Flow&) const = default;
};

struct FlowRound {
  std::vector<Flow> flows;
  double repeat = 1;       // the round runs this many times back to back
  const char* phase = "";  // consecutive rounds may share one
};

struct FlowTiming {
  double seconds = 0;            // sum over rounds of repeat x round time
  double bytes_per_gpu = 0;      // simulated bytes the busiest GPU sends
  double inter_node_bytes = 0;   // simulated bytes leaving each node (mean over nodes)
  std::vector<PhaseSpan> spans;  // one per run of consecutive rounds of one phase, from 0
};

struct FlowTraffic {
  double bytes_per_gpu = 0;     // simulated bytes the busiest GPU sends
  double inter_node_bytes = 0;  // simulated bytes leaving each node (mean over nodes)
};

// What `rounds` send on `cluster` (arithmetic, no simulation).
FlowTraffic flow_traffic(const net::ClusterSpec& cluster, const std::vector<FlowRound>& rounds);

// Every job's timing (a job is one collective's rounds), all simulated in one engine on
// `cluster`'s platform. A round whose flows equal the round before it reuses its time.
std::vector<FlowTiming> simulate_flow_jobs(const net::ClusterSpec& cluster,
                                           const std::vector<std::vector<FlowRound>>& jobs);

}  // namespace compopt::sim
