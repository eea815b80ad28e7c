#pragma once
// Collapsed round timing: the shift rounds of sim/round_timing.h simulated on a mirror
// of the cluster with at most two nodes, by one actor, instead of one actor per GPU on
// the whole platform. On a star of identical nodes (or a single-leaf fat-tree, any NICs
// per node) rotating the nodes maps the platform onto itself, so in a round
// every node's GPUs send the same flows (node 0's pattern). The mirror runs that
// pattern from both of its nodes, sending each flow that leaves node 0 to the other
// mirror node: every GPU link, NIC link and node switch of the mirror carries exactly
// the flows (count, size, route length) of its counterparts on the full cluster, so
// max-min sharing gives every flow the same rate and the round the same time. With rails,
// each rail's uplink is sized from the node count (uplink_gbps unset), so the mirror's
// carries 2/nodes of the flows at 2/nodes of the rate: the same share per flow.
// Each flow is its own communication (sim/flow_post.h). docs/simulator.md, "Collapse".

#include <cstdint>
#include <vector>

#include "core/comm/phase_log.h"
#include "net_models/cluster_spec.h"
#include "sim/round_timing.h"
#include "sim/wire_map.h"

namespace compopt::sim {

// Whether `cluster`'s rounds collapse exactly: a generated star, or fat-tree with one leaf
// switch; with rails only when the uplinks are sized from the node count.
bool collapsible(const net::ClusterSpec& cluster);

// `cluster` cut to min(nodes, 2) nodes under one switch.
net::ClusterSpec mirror_cluster(const net::ClusterSpec& cluster);

struct RoundJob {
  std::vector<ShiftRound> rounds;  // collective_rounds over every GPU of the cluster
  WireMap wire;                    // simulated bytes of each real message
};

struct CollapsedTiming {
  double seconds = 0;            // sum over rounds of repeat x round time
  double bytes_per_gpu = 0;      // simulated bytes the busiest GPU sends
  double inter_node_bytes = 0;   // simulated bytes leaving each node
  std::vector<PhaseSpan> spans;  // one per run of rounds of one phase, from 0 (every rank's)
};

// Every job's timing, all simulated in one engine on mirror_cluster(cluster). A round
// with the flows and size of an earlier one reuses its time. Throws InvalidArgument
// unless collapsible(cluster).
std::vector<CollapsedTiming> simulate_collapsed(const net::ClusterSpec& cluster,
                                                const std::vector<RoundJob>& jobs);

}  // namespace compopt::sim
