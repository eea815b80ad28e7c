#include "sim/allreduce_selection.h"

#include <array>
#include <bit>
#include <limits>

#include "net_models/nccl_version.h"
#include "sim/allreduce_patterns.h"

namespace compopt::sim {

namespace {

using Runnable = std::vector<const AllreduceAlgorithm*>;

const AllreduceAlgorithm& ring_only(double /*bytes*/, const net::ClusterSpec& /*cluster*/,
                                    const Runnable& runnable) {
  return *runnable.front();  // the registry's first entry, the ring, runs everywhere
}

const AllreduceAlgorithm* find_runnable(const Runnable& runnable, std::string_view name) {
  for (const AllreduceAlgorithm* a : runnable)
    if (a->name == name) return a;
  return nullptr;
}

const AllreduceAlgorithm& tree_threshold(double bytes, const net::ClusterSpec& cluster,
                                         const Runnable& runnable) {
  const AllreduceAlgorithm* tree = find_runnable(runnable, "tree");
  if (tree != nullptr && bytes <= nccl24_tree_threshold_bytes(cluster)) return *tree;
  return *runnable.front();
}

const AllreduceAlgorithm& tuning_model(double bytes, const net::ClusterSpec& cluster,
                                       const Runnable& runnable) {
  const AllreduceAlgorithm* best = runnable.front();
  for (const AllreduceAlgorithm* a : runnable)
    if (nccl_predicted_s(*a, bytes, cluster) < nccl_predicted_s(*best, bytes, cluster)) best = a;
  return *best;
}

// In version order: a version takes the last rule whose first version it reaches.
constexpr std::array<AllreduceSelection, 3> kSelections = {{
    {{2, 0, 0}, "ring only", ring_only},
    {{2, 4, 0}, "tree threshold", tree_threshold},
    {{2, 5, 0}, "tuning model", tuning_model},
}};

}  // namespace

const AllreduceSelection& allreduce_selection(const net::ClusterSpec& cluster) {
  if (cluster.nccl_version.empty()) return kSelections.back();
  const net::NcclVersion version = net::parse_nccl_version(cluster.nccl_version);
  const AllreduceSelection* chosen = &kSelections.front();
  for (const AllreduceSelection& s : kSelections)
    if (s.first_version <= version) chosen = &s;
  return *chosen;
}

// NCCL 2.4's estimate (src/init.cc, ncclTreeThreshold), in bytes per microsecond and
// microseconds: ring bandwidth 5000 per channel with NVLink (5000 over PCIe), the tree 3/4
// of it with NVLink (doubled on 2 nodes) or 2/3 over PCIe; latencies 6 us per ring step,
// 15 us per tree level across nodes and 4 us per GPU inside a node.
double nccl24_tree_threshold_bytes(const net::ClusterSpec& cluster) {
  const int nodes = cluster.nodes, ranks = cluster.gpus();
  if (nodes < 2) return 0;
  const bool nvlink = cluster.intra_node_fabric != net::IntraNodeFabric::kPcie;
  const double ring_bw = nvlink ? 5000.0 * allreduce_channels(cluster) : 5000.0;
  double tree_bw = nvlink ? ring_bw * 3 / 4 : ring_bw * 2 / 3;
  if (nvlink && nodes == 2) tree_bw *= 2;
  const int levels = static_cast<int>(std::bit_width(static_cast<unsigned>(nodes))) - 1;
  const double ring_lat = 6.0 * (ranks - 1);
  const double tree_lat = 15.0 * levels + 4.0 * (cluster.gpus_per_node - 1);
  if (ring_lat <= tree_lat) return 0;
  if (tree_bw > ring_bw) return std::numeric_limits<double>::infinity();
  return ring_bw * tree_bw / (ring_bw - tree_bw) * (ring_lat - tree_lat);
}

}  // namespace compopt::sim
