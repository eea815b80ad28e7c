#pragma once
// NCCL's tuning model of an allreduce with the Simple protocol (NVIDIA/nccl
// src/graph/tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime; docs/simulator.md
// "Allreduce algorithms"). NCCL predicts each algorithm's time as latency + bytes /
// algorithm bandwidth and runs the lowest; the step simulator picks the same way and
// then simulates the chosen algorithm's messages.
//
// Latency: a base latency per algorithm plus a per-step latency for each NVLink/PCI hop
// and each network hop, in microseconds: the software cost of the protocol (flag
// waits, chunk hand-offs, pipeline fill) that the simulated wire does not hold.
// Bandwidth: the bus bandwidth (here the node's NIC bandwidth across nodes, the GPU's
// link inside one node, after the cluster's efficiencies) times n / (2(n-1)) for the
// ring and 0.9 x 0.5 for the tree, with NCCL's per-size tree correction; on 2 nodes the
// tree's bus bandwidth is its graph's raised intra-node speed (nccl_tree_bus_bandwidth).
// Gradient-sized messages run on Simple in NCCL's model; LL and LL128 are not modelled.

#include "net_models/cluster_spec.h"

namespace compopt::sim {

// Ring: base + (2(n-1) - 2(N-1)) intra-node steps + 2(N-1) network steps for n GPUs on
// N nodes, x 1.9 on several nodes once `bytes` >= n/16 x 64 KiB (NCCL's "plateau
// effect of ring"). Seconds.
double nccl_ring_latency_s(double bytes, const net::ClusterSpec& cluster);

// Tree: 2 x ((g-1) intra-node steps + floor(log2 N) network steps) for g GPUs per node
// (the reduce up and the broadcast down). Seconds.
double nccl_tree_latency_s(double bytes, const net::ClusterSpec& cluster);

// The bus bandwidth NCCL's model credits the tree with, bytes per second: the node's
// (bus_bandwidth: its NICs across nodes) except on exactly 2 nodes, where NCCL's graph search
// raises the tree graph's intra-node speed up to twice the inter-node one and its tuning model
// charges that intra speed. The raise stops at one GPU's link (every channel's chain passes
// through each GPU; a faster graph is not found), and never lowers the bus bandwidth. It is
// what the wire does: on 2 nodes each NIC carries S per direction in the double binary tree
// (each node is the other's only child in one tree and its parent in the other) against
// 2(n-1)/n S in the ring; from 3 nodes on an inner node carries 2S (docs/simulator.md,
// "Allreduce algorithms").
double nccl_tree_bus_bandwidth(const net::ClusterSpec& cluster);

// The algorithm bandwidths NCCL's model assumes for `bytes`, in bytes per second.
double nccl_ring_bandwidth(double bytes, const net::ClusterSpec& cluster);
double nccl_tree_bandwidth(double bytes, const net::ClusterSpec& cluster);

// NCCL's bandwidth factor of the tree against its bus bandwidth (busBw x 0.9).
inline constexpr double kNcclTreeBandwidthFactor = 0.9;

// NVLS (NVLink SHARP, NCCL 2.17 on): inside one node of Hopper or Blackwell GPUs on
// NVSwitch, each GPU sends its S bytes to the switch, which reduces them and multicasts the
// result, so each GPU link carries S each way (a ring: 2(n-1)/n S). NCCL's model opens one
// channel per GPU (c = g) at the per-channel rate its graph search settles on, the largest
// entry of its speed table (src/graph/search.cc, SM90 and SM100 tables) at most the GPU's
// NVLink bandwidth / c, and gives NVLS busBw = 2 x e x (c - 1) x that rate for NVLS efficiency
// e (0.85 Hopper, 0.74 Blackwell; src/graph/tuning.cc), so algbw = e x c x rate; latency 25 us.
// Whether the cluster's NCCL runs NVLS: one node of at least 2 GPUs with NVLS on NVSwitch,
// NCCL 2.17 or later (an empty version is a current NCCL).
bool nvls_runs_on(const net::ClusterSpec& cluster);
double nccl_nvls_latency_s(double bytes, const net::ClusterSpec& cluster);
// NCCL's algorithm bandwidth of NVLS, e x c x per-channel rate, in bytes per second (0 where
// NVLS does not run).
double nccl_nvls_bandwidth(double bytes, const net::ClusterSpec& cluster);

}  // namespace compopt::sim
