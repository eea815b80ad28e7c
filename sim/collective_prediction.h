#pragma once
// The step simulator's prediction of one collective as nccl-tests times it: the fp32
// allreduce of `bytes` per rank on a cluster, alone (overlap off), through the step
// simulator's own baseline allreduce (the path predicted_allreduce_ms of network_fit.h takes:
// NCCL's algorithm choice by the cluster's NCCL version, protocol latency, bandwidth factor,
// channels). `compopt predict-collective` and `compopt validate public-checks` use it.

#include <string>

#include "net_models/cluster_spec.h"
#include "net_models/workload.h"
#include "sim/input_ranges.h"

namespace compopt::sim {

struct AllreducePrediction {
  double seconds = 0;     // the allreduce's simulated time
  std::string algorithm;  // the algorithm charged (allreduce_algorithm.h: ring, tree)
};

// The workload whose only cost that matters is the fp32 allreduce of `bytes` per rank
// (whole fp32 elements, at least one); the compute is a placeholder, never compared.
net::WorkloadSpec allreduce_workload(double bytes);

// Throws InvalidArgument for a cluster resolve_scenario refuses or fewer than 4 bytes.
AllreducePrediction predict_allreduce(const net::ClusterSpec& cluster, double bytes);

// The band of `seconds`, predict_allreduce's time for `bytes` on `cluster`, over the
// cluster's network inputs at the ends of their ranges (input_ranges.h, network_band); the
// model-error term (model_error.h) is not in it.
Band allreduce_network_band(const net::ClusterSpec& cluster, double bytes, double seconds);

// A one-line description of `cluster`'s network, no commas: GPUs, intra-node fabric and
// rate, NICs, transport, latency, streams per peer.
std::string describe_cluster_network(const net::ClusterSpec& cluster);

}  // namespace compopt::sim
