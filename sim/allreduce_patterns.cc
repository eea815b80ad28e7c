#include "sim/allreduce_patterns.h"

#include <algorithm>
#include <map>
#include <utility>

namespace compopt::sim {

namespace {

// Channel j's GPUs of node `node` from GPU j x g / c on, reversed when `reverse`.
std::vector<int> node_order(const net::ClusterSpec& cluster, int channels, int channel, int node,
                            bool reverse) {
  const int g = cluster.gpus_per_node, first = channel * g / channels;
  std::vector<int> order;
  order.reserve(static_cast<size_t>(g));
  for (int k = 0; k < g; ++k) order.push_back(node * g + (first + k) % g);
  if (reverse) std::reverse(order.begin(), order.end());
  return order;
}

// Flows merged per (source, destination).
class FlowSet {
 public:
  void add(int src, int dst, double bytes) { bytes_[{src, dst}] += bytes; }
  std::vector<Flow> flows() const {
    std::vector<Flow> out;
    for (const auto& [pair, bytes] : bytes_) out.push_back({pair.first, pair.second, bytes});
    return out;
  }

 private:
  std::map<std::pair<int, int>, double> bytes_;
};

// Both directions of an edge of a pipelined tree: reduce towards `up`, broadcast back.
void add_edge(FlowSet& set, int down, int up, double bytes) {
  set.add(down, up, bytes);
  set.add(up, down, bytes);
}

// Node at `position` of tree `tree` (0 or 1) over `count` nodes.
int node_at(int tree, int position, int count) {
  if (tree == 0) return position;
  return count % 2 == 0 ? count - 1 - position : (position + 1) % count;
}

}  // namespace

int allreduce_channels(const net::ClusterSpec& cluster) {
  if (cluster.nodes < 2 || !cluster.platform_file.empty()) return 1;
  return std::max(1, std::min(cluster.nics_per_node, cluster.gpus_per_node));
}

int binary_tree_parent(int position, int count) {
  if (position == 0) return -1;
  const int bit = position & -position;
  const int up = (position ^ bit) | (bit << 1);
  return up < count ? up : position ^ bit;
}

std::vector<std::vector<int>> channel_rings(const net::ClusterSpec& cluster, int channels) {
  std::vector<std::vector<int>> rings(static_cast<size_t>(channels));
  for (int j = 0; j < channels; ++j) {
    for (int node = 0; node < cluster.nodes; ++node) {
      const std::vector<int> order = node_order(cluster, channels, j, node, node % 2 == 1);
      rings[static_cast<size_t>(j)].insert(rings[static_cast<size_t>(j)].end(), order.begin(),
                                           order.end());
    }
  }
  return rings;
}

std::vector<FlowRound> ring_channel_rounds(double bytes, const net::ClusterSpec& cluster,
                                           int channels) {
  const int n = cluster.gpus();
  if (n < 2) return {};
  FlowSet set;
  for (const std::vector<int>& ring : channel_rings(cluster, channels)) {
    for (size_t k = 0; k < ring.size(); ++k) {
      set.add(ring[k], ring[(k + 1) % ring.size()], bytes / (n * channels));
    }
  }
  const std::vector<Flow> flows = set.flows();
  return {{.flows = flows, .repeat = n - 1.0, .phase = "reduce-scatter"},
          {.flows = flows, .repeat = n - 1.0, .phase = "all-gather"}};
}

std::vector<FlowRound> double_tree_rounds(double bytes, const net::ClusterSpec& cluster,
                                          int channels) {
  if (cluster.gpus() < 2) return {};
  const int count = cluster.nodes;
  const double share = bytes / (2.0 * channels);  // per tree of a channel
  FlowSet set;
  for (int j = 0; j < channels; ++j) {
    for (int tree = 0; tree < 2; ++tree) {
      std::vector<int> head(static_cast<size_t>(count));
      for (int node = 0; node < count; ++node) {
        const std::vector<int> chain = node_order(cluster, channels, j, node, tree == 1);
        head[static_cast<size_t>(node)] = chain.front();
        for (size_t k = 1; k < chain.size(); ++k) add_edge(set, chain[k], chain[k - 1], share);
      }
      for (int p = 1; p < count; ++p) {
        const int child = node_at(tree, p, count);
        const int parent = node_at(tree, binary_tree_parent(p, count), count);
        add_edge(set, head[static_cast<size_t>(child)], head[static_cast<size_t>(parent)], share);
      }
    }
  }
  return {{.flows = set.flows(), .repeat = 1, .phase = "tree reduce-broadcast"}};
}

std::vector<FlowRound> nvls_rounds(double bytes, const net::ClusterSpec& cluster) {
  FlowRound round;
  round.phase = "nvls";
  const int g = cluster.gpus_per_node;
  for (int i = 0; i < g; ++i) round.flows.push_back({i, (i + 1) % g, bytes});
  return {round};
}

}  // namespace compopt::sim
