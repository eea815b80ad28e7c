#include "net_models/bandwidth_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace compopt::net {
namespace {

// A link class's default spread and its reason.
struct ClassDefault {
  LinkClass link_class;
  const char* name;
  BandwidthSpread spread;
  const char* reason;
};

// The default of each link class (LinkClass, set per transport in transport_profile.cc). The
// two inter-node defaults are the paper presets' spreads (cluster_presets.cc), rounded.
constexpr ClassDefault kClassDefaults[] = {
    {LinkClass::kEthernet, "Ethernet/TCP", {0.85, 1.04}, "ethernet-v100-4's spread"},
    {LinkClass::kInfiniband, "InfiniBand/RDMA", {0.95, 1.07}, "infiniband-v100-8's spread"},
    {LinkClass::kGpuLink, "GPU link", {0.9, 1.1}, "assumed, no repeated measurement"},
};
constexpr double kMinGbps = 1e-3, kMaxGbps = 1e5;  // ClusterSpec's rate range

// The class default of the links `transport` runs on; throws InvalidArgument naming the
// transport when it is not in the registry.
const ClassDefault& class_default(const TransportProfile& transport) {
  const LinkClass link_class = transport_registry().get(transport.name).link_class;
  return *std::find_if(std::begin(kClassDefaults), std::end(kClassDefaults),
                       [&](const ClassDefault& d) { return d.link_class == link_class; });
}

// `low`/`high` over the class default where they are 0; `defaulted` tells whether any was.
BandwidthSpread filled(double low, double high, const ClassDefault& d, bool& defaulted) {
  defaulted = low == 0 || high == 0;
  return {low != 0 ? low : d.spread.low, high != 0 ? high : d.spread.high};
}

// Where a class's factors come from, in words.
std::string class_reason(const ClassDefault& d, const TransportProfile& transport, bool defaulted) {
  return defaulted
             ? fmt::format("{} default for transport {}: {}", d.name, transport.name, d.reason)
             : "the cluster's";
}

std::string class_note(const char* side, const BandwidthSpread& s, const ClassDefault& d,
                       const TransportProfile& transport, bool defaulted) {
  return fmt::format("{} x{:.3g}..x{:.3g} ({})", side, s.low, s.high,
                     class_reason(d, transport, defaulted));
}

}  // namespace

LinkSpreads link_spreads(const ClusterSpec& spec) {
  if (!spec.platform_file.empty()) {
    const std::string none = "none: a platform file's links have no class to take a spread from";
    return {{}, {}, none, none, none};
  }
  const ClassDefault& inter = class_default(spec.inter_node_transport);
  const ClassDefault& intra = class_default(spec.intra_node_transport);
  bool inter_default = false, intra_default = false;
  LinkSpreads out;
  out.inter_node =
      filled(spec.inter_node_spread_low, spec.inter_node_spread_high, inter, inter_default);
  out.intra_node =
      filled(spec.intra_node_spread_low, spec.intra_node_spread_high, intra, intra_default);
  const std::string own = spec.spread_source.empty() ? "" : ". Source: " + spec.spread_source;
  out.inter_node_source =
      class_reason(inter, spec.inter_node_transport, inter_default) + (inter_default ? "" : own);
  out.intra_node_source =
      class_reason(intra, spec.intra_node_transport, intra_default) + (intra_default ? "" : own);
  out.source = fmt::format(
      "{}; {}",
      class_note("inter-node", out.inter_node, inter, spec.inter_node_transport, inter_default),
      class_note("intra-node", out.intra_node, intra, spec.intra_node_transport, intra_default));
  if (!spec.spread_source.empty() && !(inter_default && intra_default)) out.source += own;
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
