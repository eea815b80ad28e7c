#pragma once
// The message patterns of NCCL's uncompressed allreduce algorithms as flow rounds
// (flow_rounds.h) over every GPU of a cluster (rank r = GPU r % g of node r / g),
// for `bytes` wire bytes of gradient per GPU (docs/simulator.md "Allreduce algorithms").
//
// Channels: NCCL runs c rings (or trees) side by side, each on a 1/c share of the
// data, laid out so that their inter-node hops use different GPUs and hence different
// NICs. Channel j visits the GPUs of a node starting at GPU j x g / c. In a ring, nodes
// of odd index run their GPUs in reverse, so every hop between nodes joins GPUs of the
// same local index (the same rail) on an even number of nodes.
//
// Ring: per channel, the reduce-scatter and the all-gather are each n-1 identical
// rounds in which every GPU sends bytes / (n c) to its successor.
//
// Tree (NCCL's double binary tree): per channel two trees over the nodes, each on half
// the channel's data. Tree 0 is the in-order binary tree of node indices (node r's
// parent clears r's lowest set bit and sets the next one up, or only clears it when
// that leaves the range); tree 1 is tree 0 mirrored (N even) or shifted by one (N odd),
// so a node that is inner in one tree is a leaf in the other. Inside a node each tree
// is a chain of its GPUs (channel order for tree 0, reversed for tree 1) whose head
// talks to the heads of the other nodes, all on one rail. Reduce (up) and
// broadcast (down) are pipelined in chunks, so in steady state every tree edge carries
// its share in both directions at once: one round of all those flows, merged per GPU
// pair. The pipeline fill is left to NCCL's latency model (nccl_latency.h).
//
// NVLS (one node on NVSwitch): each GPU sends its S bytes up to the switch and receives the
// reduced S back. The star has no switch endpoint, so the round is one shift of S bytes
// from GPU i to GPU i + 1: every GPU link carries S in each direction at once, as NVLS
// loads it.

#include <vector>

#include "net_models/cluster_spec.h"
#include "sim/flow_rounds.h"

namespace compopt::sim {

// Channels NCCL opens across nodes here: one per NIC (capped at the GPUs of a node),
// 1 on a single node, with one NIC, or on a platform file (allreduce_algorithm.h).
int allreduce_channels(const net::ClusterSpec& cluster);

// Parent of node `position` in the in-order binary tree over `count` nodes; -1 for the
// root (position 0).
int binary_tree_parent(int position, int count);

// The GPUs of `channels` rings, each a list of n ranks in ring order.
std::vector<std::vector<int>> channel_rings(const net::ClusterSpec& cluster, int channels);

std::vector<FlowRound> ring_channel_rounds(double bytes, const net::ClusterSpec& cluster,
                                           int channels);
std::vector<FlowRound> double_tree_rounds(double bytes, const net::ClusterSpec& cluster,
                                          int channels);
std::vector<FlowRound> nvls_rounds(double bytes, const net::ClusterSpec& cluster);

}  // namespace compopt::sim
