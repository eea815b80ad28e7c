#include "sim/allreduce_algorithm.h"

#include <fmt/format.h>

#include "core/util/error.h"
#include "sim/allreduce_patterns.h"
#include "sim/allreduce_selection.h"
#include "sim/nccl_tuning.h"

namespace compopt::sim {

namespace {

std::vector<FlowRound> ring_rounds(double bytes, const net::ClusterSpec& cluster) {
  const int channels = allreduce_channels(cluster);
  if (channels == 1) return {};
  return ring_channel_rounds(bytes, cluster, channels);
}

std::vector<FlowRound> tree_rounds(double bytes, const net::ClusterSpec& cluster) {
  return double_tree_rounds(bytes, cluster, allreduce_channels(cluster));
}

Registry<AllreduceAlgorithm> make_registry() {
  Registry<AllreduceAlgorithm> r("allreduce algorithm");
  AllreduceAlgorithm ring;
  ring.name = "ring";
  ring.help = "NCCL's ring: reduce-scatter and all-gather, one channel per NIC";
  ring.rounds = ring_rounds;
  ring.latency_s = nccl_ring_latency_s;
  ring.nccl_bandwidth = nccl_ring_bandwidth;
  AllreduceAlgorithm tree;
  tree.name = "tree";
  tree.help = "NCCL's double binary tree over nodes, a chain inside each node, pipelined";
  tree.rounds = tree_rounds;
  tree.latency_s = nccl_tree_latency_s;
  tree.nccl_bandwidth = nccl_tree_bandwidth;
  tree.bandwidth_factor = kNcclTreeBandwidthFactor;
  tree.on_platform_files = false;
  tree.timing_nodes = 64;
  r.add(std::move(ring)).add(std::move(tree));
  return r;
}

}  // namespace

const Registry<AllreduceAlgorithm>& allreduce_algorithm_registry() {
  static const Registry<AllreduceAlgorithm> registry = make_registry();
  return registry;
}

void check_allreduce_algorithm(std::string_view choice) {
  const auto& registry = allreduce_algorithm_registry();
  if (choice == kAutoAllreduceAlgorithm || registry.contains(choice)) return;
  throw InvalidArgument(fmt::format("allreduce_algorithm '{}': expected {} or {}", choice,
                                    kAutoAllreduceAlgorithm, registry.expected()));
}

double nccl_predicted_s(const AllreduceAlgorithm& a, double bytes,
                        const net::ClusterSpec& cluster) {
  return a.latency_s(bytes, cluster) + bytes / a.nccl_bandwidth(bytes, cluster);
}

const AllreduceAlgorithm& choose_allreduce_algorithm(std::string_view choice, double bytes,
                                                     const net::ClusterSpec& cluster) {
  check_allreduce_algorithm(choice);
  const auto& registry = allreduce_algorithm_registry();
  const bool file = !cluster.platform_file.empty();
  if (choice != kAutoAllreduceAlgorithm) {
    const AllreduceAlgorithm& a = registry.get(choice);
    if (file && !a.on_platform_files) {
      throw InvalidArgument(fmt::format(
          "allreduce_algorithm '{}' does not run on a platform file ({}); expected ring or auto",
          choice, cluster.platform_file));
    }
    return a;
  }
  std::vector<const AllreduceAlgorithm*> runnable;
  for (const AllreduceAlgorithm& a : registry.entries())
    if (!file || a.on_platform_files) runnable.push_back(&a);
  return allreduce_selection(cluster).choose(bytes, cluster, runnable);
}

}  // namespace compopt::sim
