#pragma once
// The registry of uncompressed allreduce algorithms the step simulator can charge for
// the `full_precision` and `warmup` stages, as NCCL offers them (docs/simulator.md
// "Allreduce algorithms"): `ring` (NCCL's ring, one channel per NIC), `tree`
// (NCCL's double binary tree, same channels) and `nvls` (NVLink SHARP inside one NVSwitch
// node of Hopper or Blackwell GPUs, NCCL 2.17 on; nccl_tuning.h). An algorithm gives its message
// pattern as flow rounds (allreduce_patterns.h), and NCCL's tuning model of it (nccl_tuning.h):
// protocol latency, algorithm bandwidth and bandwidth factor. The choice is a cluster's
// `allreduce_algorithm`: "auto" (the algorithm NCCL picks for the message size and cluster,
// by the rule of the cluster's NCCL version, allreduce_selection.h) or a registered name
// (like NCCL_ALGO).

#include <string_view>
#include <vector>

#include "core/util/registry.h"
#include "net_models/cluster_spec.h"
#include "sim/flow_rounds.h"

namespace compopt::sim {

struct AllreduceAlgorithm : RegistryEntry {
  // The flow rounds for `bytes` of gradient per GPU; empty for the one-channel ring,
  // which is timed as before (round_timing.h, or the real ring collective).
  std::vector<FlowRound> (*rounds)(double bytes, const net::ClusterSpec& cluster) = nullptr;
  // NCCL's model: protocol latency (added to the simulated time) and algorithm bandwidth.
  double (*latency_s)(double bytes, const net::ClusterSpec& cluster) = nullptr;
  double (*nccl_bandwidth)(double bytes, const net::ClusterSpec& cluster) = nullptr;
  // The simulated transfer time is divided by it: NCCL's share of the bandwidth its rounds
  // are simulated at.
  double (*bandwidth_factor)(const net::ClusterSpec& cluster) = nullptr;
  // Whether its simulated time comes from 2(n-1) lock-step ring rounds that NCCL pipelines:
  // the charge then takes the pipelined latency (ring_pipeline.h).
  bool lock_step_ring = false;
  // Whether NCCL can run it on the cluster; nullptr: everywhere.
  bool (*runs_on)(const net::ClusterSpec& cluster) = nullptr;
  // Whether it runs on a user's platform XML. SimGrid 3.32 crashes loading an XML platform
  // in an engine after one that ran flow rounds, so there only the one-channel ring runs.
  bool on_platform_files = true;
  // 0: its rounds are timed on the whole cluster. k > 0: from k nodes on its round time no
  // longer depends on the node count (every node's links carry a flow pattern already present
  // on k nodes, and a flow's bytes do not depend on the node count;
  // tests/sim/allreduce_algorithm_test.cc checks it), so on a cluster whose nodes are alike
  // (collapsed_rounds.h, collapsible) it is timed on k nodes and its traffic counted on all.
  int timing_nodes = 0;
};

const Registry<AllreduceAlgorithm>& allreduce_algorithm_registry();

inline constexpr std::string_view kAutoAllreduceAlgorithm = "auto";

// Throws InvalidArgument ("allreduce_algorithm 'x': expected auto or one of ring, tree")
// unless `choice` is "auto" or a registered name or alias.
void check_allreduce_algorithm(std::string_view choice);

// The registered algorithms that run on `cluster` (its platform file, runs_on), in registry
// order: the ring first.
std::vector<const AllreduceAlgorithm*> runnable_allreduce_algorithms(
    const net::ClusterSpec& cluster);

// NCCL's predicted time of `a` for `bytes` per GPU: latency + bytes / bandwidth.
double nccl_predicted_s(const AllreduceAlgorithm& a, double bytes, const net::ClusterSpec& cluster);

// The algorithm for `choice` ("auto": the one the cluster's NCCL version picks among those
// that run on the cluster, allreduce_selection.h; else the one named) and `bytes` of gradient
// per GPU. Throws like check_allreduce_algorithm, and InvalidArgument when the named one
// does not run on the cluster's platform file or on the cluster (runs_on).
const AllreduceAlgorithm& choose_allreduce_algorithm(std::string_view choice, double bytes,
                                                     const net::ClusterSpec& cluster);

}  // namespace compopt::sim
