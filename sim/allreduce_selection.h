#pragma once
// How NCCL picks the uncompressed allreduce's algorithm when none is forced
// (allreduce_algorithm "auto"), by the cluster's NCCL version (ClusterSpec::nccl_version;
// docs/simulator.md "Allreduce algorithms"). NCCL changed the rule twice:
//   before 2.4  the ring only (NCCL had no tree);
//   2.4         the double binary tree for messages up to a threshold NCCL computes once
//               per communicator (src/init.cc, ncclTreeThreshold), else the ring;
//   2.5 on      the tuning model (nccl_tuning.h): each algorithm's predicted time, the
//               lowest wins.
// An empty version is a current NCCL: the tuning model.

#include <string_view>
#include <vector>

#include "net_models/cluster_spec.h"
#include "net_models/nccl_version.h"
#include "sim/allreduce_algorithm.h"

namespace compopt::sim {

struct AllreduceSelection {
  net::NcclVersion first_version;  // the NCCL version that introduced the rule
  std::string_view name;           // "ring only", "tree threshold", "tuning model"
  // The algorithm for `bytes` per GPU among `runnable` (those that run on the cluster; the
  // ring always does).
  const AllreduceAlgorithm& (*choose)(double bytes, const net::ClusterSpec& cluster,
                                      const std::vector<const AllreduceAlgorithm*>& runnable);
};

// The rule of the cluster's NCCL version (throws InvalidArgument on a malformed version).
const AllreduceSelection& allreduce_selection(const net::ClusterSpec& cluster);

// NCCL 2.4's tree threshold in bytes: the tree runs for messages up to it. 0 on one node or
// when the ring's latency is no worse than the tree's; infinity when NCCL's estimate of the
// tree's bandwidth beats the ring's (two NVLink nodes: there the tree moves half the ring's
// bytes through each NIC), so the tree runs at every size.
double nccl24_tree_threshold_bytes(const net::ClusterSpec& cluster);

}  // namespace compopt::sim
