#pragma once
// Out-of-sample checks against public nccl-tests results (net_models/nccl_tests_rows.h,
// docs/validation.md): each published case described as a compopt cluster and its fp32
// allreduce predicted by the step simulator's own baseline allreduce (the path
// predicted_allreduce_ms of network_fit.h takes: NCCL's algorithm choice, protocol latency,
// bandwidth factor, channels), with nothing fitted to the cases.
//
// The cluster is what a user would write in a [cluster] table without a preset: the GPU
// preset, the intra-node fabric's public link at NCCL's per-link efficiency (fabric_link),
// the NICs at their line rate with efficiency 1 (no calibration row describes these
// clusters), the NCCL version the case printed, the transport
// profile of the case with its streams per peer, NCCL_ALGO when the command set it, one star
// switch, rails when a node has several NICs. Node-to-node latency is the calibrated presets'
// figure of the transport (50 us over TCP, 2 us over RDMA, net_models/cluster_presets.cc).

#include <string>

#include "net_models/cluster_spec.h"
#include "net_models/nccl_tests_rows.h"

namespace compopt::sim {

struct PublicCheck {
  std::string cluster;    // one-line description of the compopt cluster, no commas
  std::string algorithm;  // the allreduce algorithm the simulator charged
  double predicted_s = 0, predicted_busbw_bytes_s = 0;
  // The band of predicted_s over the cluster's network inputs (input_ranges.h, network_band).
  double predicted_low_s = 0, predicted_high_s = 0;
  double published_s = 0, published_busbw_bytes_s = 0;
  double error_pct = 0;  // (predicted - published) / published time
};

// The compopt cluster of a case. Throws InvalidArgument for a GPU, fabric, transport or
// algorithm compopt does not know.
net::ClusterSpec public_check_cluster(const net::NcclTestsRow& row);

// The case's allreduce simulated on its cluster and compared with the published figures.
PublicCheck predict_public_check(const net::NcclTestsRow& row);

// nccl-tests' bus bandwidth of `bytes` per rank in `seconds` on `ranks` ranks, bytes/s.
double bus_bandwidth(double bytes, double seconds, int ranks);

}  // namespace compopt::sim
