#include "sim/nccl_tuning.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <span>
#include <string_view>

#include "net_models/nccl_version.h"

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

// The tree graph's intra-node speed on 2 nodes: NCCL's graph search raises it up to twice the
// inter-node speed (src/graph/search.cc, "increase speedIntra / bwIntra for trees (2 nodes or
// collnet)", NCCL 2.5 to current) and its tuning model charges the intra speed when there are
// at most 2 nodes (src/graph/tuning.cc, `nNodes <= 2 ? bwIntra : bwInter`).
constexpr double kTwoNodeTreeIntraRaise = 2.0;

// NVLS: NVIDIA/nccl src/graph/tuning.cc (nvlsEfficiency; hwLat NVLink NVLS Simple 25 us,
// base 0) and src/graph/search.cc (intra-node speed tables of SM90 and SM100, GB/s).
constexpr double kNvlsLatencyUs = 25;
constexpr std::array<double, 11> kSm90IntraSpeeds = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr std::array<double, 12> kSm100IntraSpeeds = {90, 80, 70, 60, 50, 45,
                                                      40, 30, 24, 20, 19, 18};
constexpr net::NcclVersion kFirstNvlsVersion{2, 17, 0};

// The GPUs with NVLS, by the start of their preset name, and NCCL's figures for them.
struct NvlsGpu {
  std::string_view prefix;
  double efficiency;
  std::span<const double> speeds;
};
const std::array<NvlsGpu, 6> kNvlsGpus = {{{"H100", 0.85, kSm90IntraSpeeds},
                                           {"H200", 0.85, kSm90IntraSpeeds},
                                           {"H800", 0.85, kSm90IntraSpeeds},
                                           {"H20", 0.85, kSm90IntraSpeeds},
                                           {"B200", 0.74, kSm100IntraSpeeds},
                                           {"GB200", 0.74, kSm100IntraSpeeds}}};

const NvlsGpu* nvls_gpu(const net::GpuSpec& gpu) {
  for (const NvlsGpu& g : kNvlsGpus)
    if (gpu.name.rfind(g.prefix, 0) == 0) return &g;
  return nullptr;
}

// The per-channel rate of NCCL's NVLS graph, GB/s: the largest speed at most the GPU's NVLink
// bandwidth (as NCCL counts it: the link x NCCL's per-link efficiency) over c channels.
double nvls_channel_gbs(const NvlsGpu& g, const net::ClusterSpec& cluster) {
  const double link_gbs = cluster.intra_node_gbps * cluster.intra_node_efficiency / 8;
  for (double speed : g.speeds)
    if (speed * cluster.gpus_per_node <= link_gbs) return speed;
  return 0;
}

bool over_pcie(const net::ClusterSpec& cluster) {
  return cluster.intra_node_fabric == net::IntraNodeFabric::kPcie;
}

// One GPU's link inside a node after NCCL's per-link efficiency, bytes per second.
double gpu_link_bandwidth(const net::ClusterSpec& cluster) {
  return cluster.intra_node_gbps * cluster.intra_node_efficiency * 1e9 / 8;
}

// Bytes per second a node moves per direction: its NICs across nodes (no faster than its
// GPUs' links), one GPU's link inside a single node.
double bus_bandwidth(const net::ClusterSpec& cluster) {
  const double link = gpu_link_bandwidth(cluster);
  if (cluster.nodes < 2) return link;
  const int nics = std::min(cluster.nics_per_node, cluster.gpus_per_node);
  const double nic = nics * cluster.nic_effective_gbps() * 1e9 / 8;
  return std::min(nic, link * cluster.gpus_per_node);
}

}  // namespace

double nccl_tree_bus_bandwidth(const net::ClusterSpec& cluster) {
  const double bus = bus_bandwidth(cluster);
  if (cluster.nodes != 2) return bus;
  return std::max(bus, std::min(kTwoNodeTreeIntraRaise * bus, gpu_link_bandwidth(cluster)));
}

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
  double bandwidth =
      0.5 * std::min(kNcclTreeBandwidthFactor * nccl_tree_bus_bandwidth(cluster), cap);
  const double chunks = std::max(1.0, bytes / 64);
  const auto log_size = static_cast<size_t>(std::floor(std::log2(chunks)));
  if (log_size < kTreeCorrection.size()) bandwidth *= kTreeCorrection[log_size];
  return bandwidth;
}

bool nvls_runs_on(const net::ClusterSpec& cluster) {
  const NvlsGpu* g = nvls_gpu(cluster.gpu);
  if (g == nullptr || cluster.nodes != 1 || cluster.gpus_per_node < 2 ||
      cluster.intra_node_fabric != net::IntraNodeFabric::kNvswitch)
    return false;
  if (!cluster.nccl_version.empty() &&
      net::parse_nccl_version(cluster.nccl_version) < kFirstNvlsVersion)
    return false;
  return nvls_channel_gbs(*g, cluster) > 0;
}

double nccl_nvls_latency_s(double /*bytes*/, const net::ClusterSpec& /*cluster*/) {
  return 1e-6 * kNvlsLatencyUs;
}

double nccl_nvls_bandwidth(double /*bytes*/, const net::ClusterSpec& cluster) {
  if (!nvls_runs_on(cluster)) return 0;
  const NvlsGpu& g = *nvls_gpu(cluster.gpu);
  return 1e9 * g.efficiency * cluster.gpus_per_node * nvls_channel_gbs(g, cluster);
}

}  // namespace compopt::sim
