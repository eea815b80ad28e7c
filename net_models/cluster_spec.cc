#include "net_models/cluster_spec.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <numeric>

#include "core/util/error.h"
#include "net_models/nccl_version.h"

namespace compopt::net {

Topology parse_topology(std::string_view name) {
  if (name == "star") return Topology::kStar;
  if (name == "fat-tree") return Topology::kFatTree;
  if (name == "torus") return Topology::kTorus;
  if (name == "dragonfly") return Topology::kDragonfly;
  throw InvalidArgument(
      fmt::format("topology '{}': expected star, fat-tree, torus or dragonfly", name));
}

std::string_view topology_name(Topology topology) {
  switch (topology) {
    case Topology::kStar:
      return "star";
    case Topology::kFatTree:
      return "fat-tree";
    case Topology::kTorus:
      return "torus";
    case Topology::kDragonfly:
      return "dragonfly";
  }
  return "unknown";
}

namespace {

// Ranges of the link figures, with the reason a user sees.
struct FieldRange {
  double lo, hi;
  bool lo_open;  // (lo, hi] instead of [lo, hi]
  const char* why;
};
constexpr FieldRange kRate = {1e-3, 1e5, false,
                              "Gbit/s: below 1 Mbit/s one step's allreduce takes hours of "
                              "simulated time and far smaller rates overflow the simulated "
                              "clock; no network link carries more than 100 Tbit/s"};
constexpr FieldRange kLatency = {0, 1, false,
                                 "seconds: no network path on Earth takes longer than 1 s one way"};
constexpr FieldRange kFraction = {0, 1, true, "the fraction of the link rate carrying payload"};
constexpr FieldRange kFactor = {0, 100, true, "a correction factor of the CM02 network model"};
constexpr int kMaxNodes = kMaxClusterGpus;     // the simulator's GPU limit with one GPU per node
constexpr int kMaxGpusPerNode = 1024;          // beyond any machine built
constexpr double kMaxOversubscription = 1024;  // one uplink port for a full 1024-port leaf

void require_in(double value, const FieldRange& r, const char* field, const std::string& cluster) {
  const bool above_lo = r.lo_open ? value > r.lo : value >= r.lo;
  if (!above_lo || !(value <= r.hi)) {
    throw InvalidArgument(fmt::format("cluster '{}': {} = {}, expected {}{}..{} ({})", cluster,
                                      field, value, r.lo_open ? "above " : "", r.lo, r.hi, r.why));
  }
}

// Nodes and GPUs per node within the simulator's limits.
void check_size(const ClusterSpec& spec) {
  if (spec.nodes < 1 || spec.nodes > kMaxNodes) {
    throw InvalidArgument(
        fmt::format("cluster '{}': nodes = {}, expected 1..{}", spec.name, spec.nodes, kMaxNodes));
  }
  if (spec.gpus_per_node < 1 || spec.gpus_per_node > kMaxGpusPerNode) {
    throw InvalidArgument(fmt::format("cluster '{}': gpus_per_node = {}, expected 1..{}", spec.name,
                                      spec.gpus_per_node, kMaxGpusPerNode));
  }
  if (static_cast<int64_t>(spec.nodes) * spec.gpus_per_node > kMaxClusterGpus) {
    throw InvalidArgument(fmt::format(
        "cluster '{}': nodes x gpus_per_node = {} x {} GPUs, expected at most {} in all", spec.name,
        spec.nodes, spec.gpus_per_node, kMaxClusterGpus));
  }
}

// Link rates, latencies, efficiencies and the network model with its factors.
void check_links(const ClusterSpec& spec) {
  const std::string& name = spec.name;
  require_in(spec.intra_node_gbps, kRate, "intra_node_gbps", name);
  require_in(spec.intra_node_latency_s, kLatency, "intra_node_latency_s", name);
  require_in(spec.inter_node_gbps, kRate, "inter_node_gbps", name);
  require_in(spec.inter_node_latency_s, kLatency, "inter_node_latency_s", name);
  require_in(spec.intra_node_efficiency, kFraction, "intra_node_efficiency", name);
  require_in(spec.inter_node_efficiency, kFraction, "inter_node_efficiency", name);
  require_in(spec.latency_factor, kFactor, "latency_factor", name);
  require_in(spec.bandwidth_factor, kFactor, "bandwidth_factor", name);
  if (spec.network_model != "CM02" && spec.network_model != "LV08") {
    throw InvalidArgument(fmt::format("cluster '{}': network_model '{}', expected CM02 or LV08",
                                      name, spec.network_model));
  }
  if (spec.network_model == "LV08" &&
      (spec.latency_factor != 1.0 || spec.bandwidth_factor != 1.0)) {
    throw InvalidArgument(
        fmt::format("cluster '{}': network_model LV08 fixes its own factors; latency_factor {} and "
                    "bandwidth_factor {} must stay 1 (use CM02 to set them)",
                    name, spec.latency_factor, spec.bandwidth_factor));
  }
}

// Spread factors: 0 (the link class's default) or low in [0.1, 1] and high in [1, 10].
void check_spread(const ClusterSpec& spec) {
  constexpr FieldRange kLow = {0.1, 1, false,
                               "a factor on the effective bandwidth for the low prediction, 0 = "
                               "the link class's default"};
  constexpr FieldRange kHigh = {1, 10, false,
                                "a factor on the effective bandwidth for the high prediction, 0 "
                                "= the link class's default"};
  const auto check = [&](double value, const FieldRange& range, const char* field) {
    if (value != 0) require_in(value, range, field, spec.name);
  };
  check(spec.inter_node_spread_low, kLow, "inter_node_spread_low");
  check(spec.inter_node_spread_high, kHigh, "inter_node_spread_high");
  check(spec.intra_node_spread_low, kLow, "intra_node_spread_low");
  check(spec.intra_node_spread_high, kHigh, "intra_node_spread_high");
}

void check_torus_dims(const ClusterSpec& spec) {
  const long product =
      std::accumulate(spec.torus_dims.begin(), spec.torus_dims.end(), 1L, std::multiplies<>());
  for (int d : spec.torus_dims) {
    if (d < 1) {
      throw InvalidArgument(
          fmt::format("cluster '{}': torus dimension {}, expected >= 1", spec.name, d));
    }
  }
  if (product != spec.nodes) {
    throw InvalidArgument(
        fmt::format("cluster '{}': torus dimensions multiply to {}, expected nodes = {}", spec.name,
                    product, spec.nodes));
  }
}

// Leaf uplinks: a rate or an oversubscription ratio, not both.
void check_uplink(const ClusterSpec& spec) {
  if (spec.uplink_gbps != 0) require_in(spec.uplink_gbps, kRate, "uplink_gbps", spec.name);
  if (!(spec.oversubscription >= 1 && spec.oversubscription <= kMaxOversubscription)) {
    throw InvalidArgument(fmt::format(
        "cluster '{}': oversubscription = {}, expected 1..{} (NIC bandwidth under a leaf switch "
        "over its uplink bandwidth)",
        spec.name, spec.oversubscription, kMaxOversubscription));
  }
  if (spec.uplink_gbps != 0 && spec.oversubscription != 1) {
    throw InvalidArgument(fmt::format(
        "cluster '{}': uplink_gbps = {} and oversubscription = {} both set the uplink; set one",
        spec.name, spec.uplink_gbps, spec.oversubscription));
  }
}

// NICs per node; several NICs and rails need the switched topologies.
void check_nics(const ClusterSpec& spec) {
  if (spec.nics_per_node < 1 || spec.nics_per_node > kMaxGpusPerNode) {
    throw InvalidArgument(fmt::format("cluster '{}': nics_per_node = {}, expected 1..{}", spec.name,
                                      spec.nics_per_node, kMaxGpusPerNode));
  }
  const bool switched = spec.topology == Topology::kStar || spec.topology == Topology::kFatTree;
  if ((spec.nics_per_node > 1 || spec.rail_optimized) && !switched) {
    throw InvalidArgument(fmt::format(
        "cluster '{}': nics_per_node = {} and rail_optimized = {} need topology star or "
        "fat-tree, not {} (SimGrid's torus and dragonfly zones give each node one link)",
        spec.name, spec.nics_per_node, spec.rail_optimized, topology_name(spec.topology)));
  }
}

// The fields of the chosen topology: fat-tree switches and uplink, torus
// dimensions, dragonfly groups.
void check_topology(const ClusterSpec& spec) {
  const int nodes = spec.nodes;
  if (spec.topology == Topology::kFatTree) {
    if (spec.nodes_per_switch < 0 ||
        (spec.nodes_per_switch > 0 && nodes % spec.nodes_per_switch != 0)) {
      throw InvalidArgument(fmt::format(
          "cluster '{}': nodes_per_switch = {}, expected 0 (one switch) or a divisor of nodes = {}",
          spec.name, spec.nodes_per_switch, nodes));
    }
  }
  if (spec.topology == Topology::kFatTree || spec.rail_optimized) check_uplink(spec);
  if (spec.topology == Topology::kTorus && !spec.torus_dims.empty()) check_torus_dims(spec);
  if (spec.topology == Topology::kDragonfly &&
      (spec.dragonfly_groups < 0 ||
       (spec.dragonfly_groups > 0 && nodes % spec.dragonfly_groups != 0))) {
    throw InvalidArgument(fmt::format(
        "cluster '{}': dragonfly_groups = {}, expected 0 (automatic) or a divisor of nodes = {}",
        spec.name, spec.dragonfly_groups, nodes));
  }
}

}  // namespace

void ClusterSpec::validate() const {
  check_size(*this);
  gpu.validate();
  if (!platform_file.empty()) {
    if (!std::filesystem::is_regular_file(platform_file)) {
      throw InvalidArgument(
          fmt::format("cluster '{}': platform file '{}' does not exist", name, platform_file));
    }
    return;  // link figures come from the file
  }
  if (!nccl_version.empty()) parse_nccl_version(nccl_version);
  check_links(*this);
  inter_node_transport.validate(fmt::format("cluster '{}': inter_node_transport", name));
  intra_node_transport.validate(fmt::format("cluster '{}': intra_node_transport", name));
  check_spread(*this);
  check_nics(*this);
  check_topology(*this);
}

void use_intra_node_fabric(ClusterSpec& spec, IntraNodeFabric fabric) {
  const FabricLink link = fabric_link(fabric, spec.gpu);
  spec.intra_node_fabric = fabric;
  spec.intra_node_gbps = link.gbps;
  spec.intra_node_latency_s = link.latency_s;
  spec.intra_node_efficiency = link.efficiency;
  spec.intra_node_transport =
      transport_profile(fabric == IntraNodeFabric::kPcie ? "pcie" : "nvlink");
}

std::vector<int> effective_torus_dims(const ClusterSpec& spec) {
  if (!spec.torus_dims.empty()) return spec.torus_dims;
  // Greedy near-cubic factorization: peel the divisor closest to the remaining cube root.
  std::vector<int> dims;
  int rest = spec.nodes;
  for (int left = 3; left > 1; --left) {
    const double target = std::pow(static_cast<double>(rest), 1.0 / left);
    int best = 1;
    for (int d = 1; d <= rest; ++d) {
      if (rest % d == 0 && std::abs(d - target) < std::abs(best - target)) best = d;
    }
    dims.push_back(best);
    rest /= best;
  }
  dims.push_back(rest);
  return dims;
}

int effective_dragonfly_groups(const ClusterSpec& spec) {
  if (spec.dragonfly_groups > 0) return spec.dragonfly_groups;
  const double target = std::sqrt(static_cast<double>(spec.nodes));
  int best = 1;
  for (int d = 1; d <= spec.nodes; ++d) {
    if (spec.nodes % d == 0 && std::abs(d - target) < std::abs(best - target)) best = d;
  }
  return best;
}

ClusterSpec with_gpus(const ClusterSpec& spec, int gpus) {
  if (gpus < 1) throw InvalidArgument(fmt::format("gpus = {}, expected >= 1", gpus));
  ClusterSpec out = spec;
  if (gpus < spec.gpus_per_node) {
    out.nodes = 1;
    out.gpus_per_node = gpus;
  } else if (gpus % spec.gpus_per_node != 0) {
    throw InvalidArgument(fmt::format(
        "gpus = {} does not divide into nodes of {} GPUs (cluster '{}'): expected a multiple of {}",
        gpus, spec.gpus_per_node, spec.name, spec.gpus_per_node));
  } else {
    out.nodes = gpus / spec.gpus_per_node;
  }
  // Fewer nodes than one leaf switch holds: they all share that switch.
  if (out.nodes <= out.nodes_per_switch) out.nodes_per_switch = 0;
  out.torus_dims.clear();
  out.dragonfly_groups = 0;
  return out;
}

}  // namespace compopt::net
