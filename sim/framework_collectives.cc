#include "sim/framework_collectives.h"

#include <algorithm>

#include "core/util/error.h"

namespace compopt::sim {

namespace {

const std::string kNcclGroupSource =
    "NVIDIA/nccl 2.10 src/group.cc (ncclGroupEnd): the sends and receives of one group are "
    "spread over the p2p channels and progressed together, so the peers are in flight at once";
const std::string kNcclRingSource =
    "NVIDIA/nccl src/collectives/device/all_gather.h: ncclAllGather is a ring whose chunks move "
    "on as soon as they land (the pipelining of docs/simulator.md, \"Ring pipelining\")";

Registry<FrameworkCollectives> make_registry() {
  Registry<FrameworkCollectives> r("compressed collectives");
  r.add({{"torch-nccl", {}, "torch.distributed on NCCL: all_to_all_single + all_gather"},
         CollectiveIssue::kInFlight,
         CollectiveIssue::kPipelined,
         CollectiveIssue::kPipelined,
         CollectiveIssue::kNone,
         "torch.distributed all_to_all_single (NCCL grouped send/recv, peers in flight) + "
         "all_gather of scales and server messages (NCCL ring, pipelined)",
         {"pytorch/pytorch torch/csrc/cuda/nccl.cpp (all2all_single_equal_split): a send and a "
          "receive per peer inside one ncclGroupStart/ncclGroupEnd",
          kNcclGroupSource, kNcclRingSource}});
  r.add({{"deepspeed-nccl", {}, "DeepSpeed's NCCL backend (2021): four torch.distributed calls"},
         CollectiveIssue::kInFlight,
         CollectiveIssue::kPipelined,
         CollectiveIssue::kPipelined,
         CollectiveIssue::kPipelined,
         "DeepSpeed NcclBackend: all_to_all_single of the signs (in flight), all_gather of the "
         "worker scales, of the server signs and of the server scale (NCCL rings, pipelined)",
         {"deepspeedai/DeepSpeed deepspeed/runtime/comm/nccl.py, NcclBackend."
          "compressed_allreduce (PR #817, March 2021)",
          "Li et al., '1-bit LAMB', arXiv:2104.06069 (2021), abstract: a new implementation on "
          "the NCCL backend of PyTorch distributed",
          kNcclGroupSource, kNcclRingSource}});
  r.add({{"deepspeed-mpi", {}, "DeepSpeed's MPI backend (2020): igathers + two Allgathers"},
         CollectiveIssue::kInFlight,
         CollectiveIssue::kWithAllToAll,
         CollectiveIssue::kLockStep,
         CollectiveIssue::kLockStep,
         "DeepSpeed MpiBackend: n igathers of the signs and n of the worker scales posted before "
         "one Waitall (in flight), then MPI Allgather of the server signs and of the server "
         "scale (blocking rings, lock-step)",
         {"deepspeedai/DeepSpeed deepspeed/runtime/comm/mpi.py, MpiBackend (my_igather, "
          "compressed_allreduce; 1-bit Adam v1, PR #380, September 2020)",
          "Li et al., '1-bit LAMB', arXiv:2104.06069 (2021), abstract: 1-bit Adam's "
          "implementation before it was MPI-based",
          "MPI ring all-gather (Open MPI coll/tuned, MVAPICH2): each step a blocking sendrecv "
          "with the neighbours, so the ring moves at its slowest hop"}});
  return r;
}

// The latency of the correction's pieces on `cluster`, seconds.
struct Latencies {
  int ranks = 0;           // of the collectives: n (flat) or N (hierarchical)
  double round = 0;        // one lock-step round: its slowest hop
  double wire = 0;         // that hop without the sender's per-message cost
  double pipelined = 0;    // a tiny pipelined ring all-gather over the ranks
  double ring_saving = 0;  // lock-step minus pipelined, one all-gather
};

Latencies latencies(const LockStepShape& shape, const net::ClusterSpec& cluster) {
  const int n = cluster.gpus(), nodes = cluster.nodes;
  const bool flat = shape.scheme == CommScheme::kCompressedFlat;
  const bool crosses = nodes > 1;
  Latencies l;
  l.ranks = flat ? n : nodes;
  l.round = crosses ? shape.hop.inter_node_s : shape.hop.intra_node_s;
  const double message = crosses ? shape.inter_node_message_s : shape.intra_node_message_s;
  l.wire = std::max(0.0, l.round - message);
  l.pipelined = flat ? (nodes - 1) * shape.hop.inter_node_s + (n - nodes) * shape.hop.intra_node_s
                     : (nodes - 1) * shape.hop.inter_node_s;
  // Across the nodes of the hierarchical scheme every hop crosses nodes: nothing to save.
  l.ring_saving = flat ? ring_pass_over_charge_s(cluster, shape.hop) : 0;
  return l;
}

// The change in seconds of one collective issued as `issue` instead of lock-step rounds.
double all_gather_change(CollectiveIssue issue, const Latencies& l) {
  switch (issue) {
    case CollectiveIssue::kPipelined:
      return -l.ring_saving;
    case CollectiveIssue::kWithAllToAll:
      return -(l.ranks - 1) * l.wire;
    case CollectiveIssue::kLockStep:
    case CollectiveIssue::kInFlight:
    case CollectiveIssue::kNone:
      return 0;
  }
  return 0;
}

// The time of the separate server-scale gather compopt does not run.
double extra_gather_s(CollectiveIssue issue, const Latencies& l) {
  switch (issue) {
    case CollectiveIssue::kPipelined:
      return l.pipelined;
    case CollectiveIssue::kLockStep:
      return (l.ranks - 1) * l.round;
    case CollectiveIssue::kInFlight:
    case CollectiveIssue::kWithAllToAll:
      return l.wire;
    case CollectiveIssue::kNone:
      return 0;
  }
  return 0;
}

}  // namespace

const Registry<FrameworkCollectives>& framework_collectives_registry() {
  static const Registry<FrameworkCollectives> registry = make_registry();
  return registry;
}

const FrameworkCollectives& framework_collectives(std::string_view name) {
  return framework_collectives_registry().get(name);
}

double framework_collectives_s(double lock_step_s, const FrameworkCollectives& framework,
                               const LockStepShape& shape, const net::ClusterSpec& cluster) {
  if (shape.scheme == CommScheme::kRing) {
    throw InvalidArgument("framework_collectives_s: the ring is not a compressed allreduce");
  }
  const Latencies l = latencies(shape, cluster);
  if (l.ranks < 2) return lock_step_s;
  double change = 0;
  if (framework.all_to_all == CollectiveIssue::kInFlight) change -= (l.ranks - 2) * l.wire;
  if (shape.has_scale) {
    change += all_gather_change(framework.worker_scales, l);
    change += extra_gather_s(framework.server_scale, l);
  }
  change += all_gather_change(framework.server, l);
  return std::max(0.0, lock_step_s + change);
}

}  // namespace compopt::sim
