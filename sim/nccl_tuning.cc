#include "sim/nccl_tuning.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace compopt::sim {

namespace {

// Microseconds, NVIDIA/nccl src/graph/tuning.cc (baseLat, hwLat; Simple protocol).
constexpr double kRingBaseUs = 8.4, kTreeBaseUs = 0.0;
constexpr double kRingNvlinkUs = 3.4, kRingPcieUs = 5.7, kRingNetUs = 9.6;
constexpr double kTreeNvlinkUs = 28, kTreePcieUs = 28, kTreeNetUs = 50;
constexpr double kRingPlateauFactor = 1.9;
constexpr double kRingPlateauBytesPerRank = 65536.0 / 16.0;
// Tree bus bandwidth cap in GB/s (maxTreeBw, Simple): above 2 nodes, up to 2 nodes.
constexpr double kTreeMaxBusGbs = 80, kTreeMaxBusGbsTwoNodes = 110;
// treeCorrectionFactor for Simple by floor(log2(bytes / 64)), 0..21; 1 from 2^22 x 64 B.
constexpr std::array<double, 22> kTreeCorrection = {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6,
                                                    .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9};

bool over_pcie(const net::ClusterSpec& cluster) {
  return cluster.intra_node_fabric == net::IntraNodeFabric::kPcie;
}

// Bytes per second a node moves per direction: its NICs across nodes (no faster than its
// GPUs' links), one GPU's link inside a single node.
double bus_bandwidth(const net::ClusterSpec& cluster) {
  const double link = cluster.intra_node_gbps * cluster.intra_node_efficiency * 1e9 / 8;
  if (cluster.nodes < 2) return link;
  const int nics = std::min(cluster.nics_per_node, cluster.gpus_per_node);
  const double nic = nics * cluster.inter_node_gbps * cluster.inter_node_efficiency * 1e9 / 8;
  return std::min(nic, link * cluster.gpus_per_node);
}

}  // namespace

double nccl_ring_latency_s(double bytes, const net::ClusterSpec& cluster) {
  const int n = cluster.gpus(), nodes = cluster.nodes;
  if (n < 2) return 0;
  const int steps = 2 * (n - 1), inter_steps = nodes > 1 ? 2 * (nodes - 1) : 0;
  const double intra_us = over_pcie(cluster) ? kRingPcieUs : kRingNvlinkUs;
  double us = kRingBaseUs + (steps - inter_steps) * intra_us + inter_steps * kRingNetUs;
  if (nodes > 1 && bytes >= n * kRingPlateauBytesPerRank) us *= kRingPlateauFactor;
  return 1e-6 * us;
}

double nccl_tree_latency_s(double /*bytes*/, const net::ClusterSpec& cluster) {
  if (cluster.gpus() < 2) return 0;
  const double intra_us = over_pcie(cluster) ? kTreePcieUs : kTreeNvlinkUs;
  const int levels = static_cast<int>(std::bit_width(static_cast<unsigned>(cluster.nodes))) - 1;
  return 1e-6 * (kTreeBaseUs + 2 * ((cluster.gpus_per_node - 1) * intra_us + levels * kTreeNetUs));
}

double nccl_ring_bandwidth(double /*bytes*/, const net::ClusterSpec& cluster) {
  const int n = cluster.gpus();
  return bus_bandwidth(cluster) * n / (2.0 * std::max(1, n - 1));
}

double nccl_tree_bandwidth(double bytes, const net::ClusterSpec& cluster) {
  const double cap = 1e9 * (cluster.nodes > 2 ? kTreeMaxBusGbs : kTreeMaxBusGbsTwoNodes);
  double bandwidth = 0.5 * std::min(kNcclTreeBandwidthFactor * bus_bandwidth(cluster), cap);
  const double chunks = std::max(1.0, bytes / 64);
  const auto log_size = static_cast<size_t>(std::floor(std::log2(chunks)));
  if (log_size < kTreeCorrection.size()) bandwidth *= kTreeCorrection[log_size];
  return bandwidth;
}

}  // namespace compopt::sim
