#pragma once
// The ring allreduce's latency as NCCL pays it (docs/simulator.md "Allreduce algorithms",
// "Ring pipelining"). The step simulator times the ring as 2(n-1) lock-step rounds (shift
// rounds, round_timing.h, or flow rounds of its channels) that each end when the slowest
// message lands, so every round pays the latency of an inter-node hop. NCCL's ring does not
// wait for all ranks between steps: each chunk moves on as soon as it lands, and many chunks
// are in flight, so a chunk's trip round the ring pays each hop's own latency once: N-1
// inter-node hops and n-N hops inside nodes per half (reduce-scatter, all-gather), for n
// GPUs on N nodes. The lock-step rounds thus over-charge 2(n-N) x (inter - intra) hop
// latency: on ethernet-a100-8 scaled to 32 nodes (93 us per hop between nodes, 5 us inside),
// 448 x 88 us = 39 ms per allreduce, whatever its size.

#include "net_models/cluster_spec.h"

namespace compopt::sim {

// One message's latency over a hop, seconds: to the same GPU of the next node (a ring's
// hop across nodes) and to the next GPU of the same node.
struct RingHopLatency {
  double inter_node_s = 0;
  double intra_node_s = 0;
};

// Simulated with 1-byte messages on two of `cluster`'s nodes under one switch (mirror_cluster,
// collapsed_rounds.h; a platform file as it is); 0 for a hop the cluster does not have.
RingHopLatency ring_hop_latency(const net::ClusterSpec& cluster);

// What lock-step rounds over-charge one pass of a ring over every GPU (a reduce-scatter or an
// all-gather) against the pipelined ring: (n - N) x max(0, inter - intra) on N >= 2 nodes of
// g >= 2 GPUs, 0 otherwise (there every hop has the same latency).
double ring_pass_over_charge_s(const net::ClusterSpec& cluster, const RingHopLatency& hop);

// The pipelined ring allreduce's time from the lock-step rounds' `lock_step_s`: its two passes'
// over-charge taken off, never below 0.
double pipelined_ring_s(double lock_step_s, const net::ClusterSpec& cluster,
                        const RingHopLatency& hop);

}  // namespace compopt::sim
