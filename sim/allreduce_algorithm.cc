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

std::vector<FlowRound> nvls_pattern(double bytes, const net::ClusterSpec& cluster) {
  return nvls_rounds(bytes, cluster);
}

std::string describe_for_error(const net::ClusterSpec& c) {
  return fmt::format("{} node(s) x {} {} on {}{}", c.nodes, c.gpus_per_node, c.gpu.name,
                     net::intra_node_fabric_name(c.intra_node_fabric),
                     c.nccl_version.empty() ? "" : ", NCCL " + c.nccl_version);
}

double unit_factor(const net::ClusterSpec& /*cluster*/) { return 1.0; }
double tree_factor(const net::ClusterSpec& /*cluster*/) { return kNcclTreeBandwidthFactor; }

// NVLS's rounds run at the GPU link's rate after NCCL's per-link efficiency; NCCL's model
// moves S at its algorithm bandwidth (nccl_tuning.h).
double nvls_factor(const net::ClusterSpec& cluster) {
  const double link = cluster.intra_node_gbps * cluster.intra_node_efficiency * 1e9 / 8;
  return nccl_nvls_bandwidth(0, cluster) / link;
}

AllreduceAlgorithm nvls_algorithm() {
  AllreduceAlgorithm nvls;
  nvls.name = "nvls";
  nvls.help = "NCCL's NVLink SHARP: the NVSwitch reduces and multicasts, one NVSwitch node";
  nvls.rounds = nvls_pattern;
  nvls.latency_s = nccl_nvls_latency_s;
  nvls.nccl_bandwidth = nccl_nvls_bandwidth;
  nvls.bandwidth_factor = nvls_factor;
  nvls.runs_on = nvls_runs_on;
  nvls.on_platform_files = false;
  return nvls;
}

Registry<AllreduceAlgorithm> make_registry() {
  Registry<AllreduceAlgorithm> r("allreduce algorithm");
  AllreduceAlgorithm ring;
  ring.name = "ring";
  ring.help = "NCCL's ring: reduce-scatter and all-gather, one channel per NIC";
  ring.rounds = ring_rounds;
  ring.latency_s = nccl_ring_latency_s;
  ring.nccl_bandwidth = nccl_ring_bandwidth;
  ring.bandwidth_factor = unit_factor;
  ring.lock_step_ring = true;
  AllreduceAlgorithm tree;
  tree.name = "tree";
  tree.help = "NCCL's double binary tree over nodes, a chain inside each node, pipelined";
  tree.rounds = tree_rounds;
  tree.latency_s = nccl_tree_latency_s;
  tree.nccl_bandwidth = nccl_tree_bandwidth;
  tree.bandwidth_factor = tree_factor;
  tree.on_platform_files = false;
  tree.timing_nodes = 64;
  r.add(std::move(ring)).add(std::move(tree)).add(nvls_algorithm());
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

std::vector<const AllreduceAlgorithm*> runnable_allreduce_algorithms(
    const net::ClusterSpec& cluster) {
  const bool file = !cluster.platform_file.empty();
  std::vector<const AllreduceAlgorithm*> runnable;
  for (const AllreduceAlgorithm& a : allreduce_algorithm_registry().entries())
    if ((!file || a.on_platform_files) && (a.runs_on == nullptr || a.runs_on(cluster)))
      runnable.push_back(&a);
  return runnable;
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
    if (a.runs_on != nullptr && !a.runs_on(cluster)) {
      throw InvalidArgument(fmt::format(
          "allreduce_algorithm '{}' does not run on cluster '{}' ({}): NVLS needs one node of "
          "at least 2 Hopper or Blackwell GPUs on NVSwitch and NCCL 2.17 or later",
          choice, cluster.name, describe_for_error(cluster)));
    }
    return a;
  }
  return allreduce_selection(cluster).choose(bytes, cluster,
                                             runnable_allreduce_algorithms(cluster));
}

}  // namespace compopt::sim
