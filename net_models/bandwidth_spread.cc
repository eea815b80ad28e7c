#include "net_models/bandwidth_spread.h"

#include <fmt/format.h>

#include <algorithm>

namespace compopt::net {
namespace {

// A link class's default spread and its reason.
struct ClassDefault {
  const char* name;
  BandwidthSpread spread;
  const char* reason;
};

// Kernel TCP stacks take tens of microseconds per hop, RDMA a few: the presets use 50 us and
// 2 us. The two inter-node defaults are the paper presets' spreads (cluster_presets.cc).
constexpr double kTcpLatencyS = 10e-6;
constexpr double kMinGbps = 1e-3, kMaxGbps = 1e5;  // ClusterSpec's rate range
const ClassDefault kEthernet = {"Ethernet/TCP", {0.85, 1.04}, "ethernet-v100-4's spread"};
const ClassDefault kInfiniband = {"InfiniBand/RDMA", {0.95, 1.07}, "infiniband-v100-8's spread"};
const ClassDefault kGpuLink = {"GPU link", {0.9, 1.1}, "assumed, no repeated measurement"};

// `low`/`high` over the class default where they are 0; `defaulted` tells whether any was.
BandwidthSpread filled(double low, double high, const ClassDefault& d, bool& defaulted) {
  defaulted = low == 0 || high == 0;
  return {low != 0 ? low : d.spread.low, high != 0 ? high : d.spread.high};
}

std::string class_note(const char* side, const BandwidthSpread& s, const ClassDefault& d,
                       bool defaulted) {
  return fmt::format("{} x{:.3g}..x{:.3g} ({})", side, s.low, s.high,
                     defaulted ? fmt::format("{} default: {}", d.name, d.reason) : "the cluster's");
}

}  // namespace

LinkSpreads link_spreads(const ClusterSpec& spec) {
  if (!spec.platform_file.empty())
    return {{}, {}, "none: a platform file's links have no class to take a spread from"};
  const ClassDefault& inter = spec.inter_node_latency_s >= kTcpLatencyS ? kEthernet : kInfiniband;
  bool inter_default = false, intra_default = false;
  LinkSpreads out;
  out.inter_node =
      filled(spec.inter_node_spread_low, spec.inter_node_spread_high, inter, inter_default);
  out.intra_node =
      filled(spec.intra_node_spread_low, spec.intra_node_spread_high, kGpuLink, intra_default);
  out.source = fmt::format("{}; {}", class_note("inter-node", out.inter_node, inter, inter_default),
                           class_note("intra-node", out.intra_node, kGpuLink, intra_default));
  if (!spec.spread_source.empty() && !(inter_default && intra_default))
    out.source += ". Source: " + spec.spread_source;
  return out;
}

ClusterSpec with_scaled_bandwidth(const ClusterSpec& spec, double inter_factor,
                                  double intra_factor) {
  // Held inside the rates ClusterSpec::validate takes (1 Mbit/s .. 100 Tbit/s).
  const auto scaled = [](double gbps, double factor) {
    return gbps == 0 ? 0.0 : std::clamp(gbps * factor, kMinGbps, kMaxGbps);
  };
  ClusterSpec out = spec;
  out.inter_node_gbps = scaled(spec.inter_node_gbps, inter_factor);
  out.uplink_gbps = scaled(spec.uplink_gbps, inter_factor);  // 0 (from the NICs) stays 0
  out.intra_node_gbps = scaled(spec.intra_node_gbps, intra_factor);
  return out;
}

}  // namespace compopt::net
