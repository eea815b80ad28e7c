#include "net_models/platform_builder.h"

#include <fmt/format.h>
#include <xbt/log.h>

#include <algorithm>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <string>

#include "core/util/error.h"

namespace compopt::net {

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kHostFlops = 1e12;  // compute is charged with sleeps, not flops
constexpr double kTcpGamma = 1e12;   // no TCP-window cap on bandwidth (docs/simulator.md)

double bytes_per_s(double gbps) { return gbps * 1e9 / 8.0; }

// The SimGrid network model is fixed at the first platform of the process
// (3.32 refuses to change it later), so both CM02 and LV08 run on the CM02
// model: LV08 is CM02 with SimGrid's published LV08 factors.
void configure_network_model(const ClusterSpec& spec) {
  static bool initialized = false;
  if (!initialized) {
    xbt_log_control_set("xbt_cfg.thres:warning");
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("contexts/stack-size", 1024);  // KiB per rank (default 8 MiB)
    initialized = true;
  }
  const bool lv08 = spec.network_model == "LV08";
  sg4::Engine::set_config("network/latency-factor", lv08 ? 13.01 : spec.latency_factor);
  sg4::Engine::set_config("network/bandwidth-factor", lv08 ? 0.97 : spec.bandwidth_factor);
  sg4::Engine::set_config("network/weight-S", lv08 ? 20537.0 : 0.0);
  sg4::Engine::set_config("network/crosstraffic", false);
  sg4::Engine::set_config("network/TCP-gamma", kTcpGamma);
}

struct NodeZone {
  sg4::NetZone* zone = nullptr;
  simgrid::kernel::routing::NetPoint* gateway = nullptr;
  std::vector<sg4::Host*> gpus;
};

NodeZone create_node(const ClusterSpec& spec, sg4::NetZone* parent, int node) {
  NodeZone out;
  const std::string name = fmt::format("node{}", node);
  out.zone = sg4::create_star_zone(name);
  out.zone->set_parent(parent);
  out.gateway = out.zone->create_router(name + "-switch");
  out.zone->add_route(out.gateway, nullptr, nullptr, nullptr, {}, true);
  for (int g = 0; g < spec.gpus_per_node; ++g) {
    sg4::Host* host = out.zone->create_host(fmt::format("{}-gpu{}", name, g), kHostFlops);
    sg4::Link* link = out.zone->create_split_duplex_link(
        fmt::format("{}-gpu{}-link", name, g),
        bytes_per_s(spec.intra_node_gbps * spec.intra_node_efficiency));
    link->set_latency(spec.intra_node_latency_s / 2);
    out.zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                        {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, true);
    out.gpus.push_back(host);
  }
  out.zone->seal();
  return out;
}

// star and fat-tree: one full zone with explicit routes NIC -> [leaf uplink ->
// core -> leaf downlink] -> NIC.
void build_switched(const ClusterSpec& spec, PlatformHosts& hosts) {
  sg4::NetZone* fabric = sg4::create_full_zone("fabric");
  const int per_switch = spec.topology == Topology::kFatTree && spec.nodes_per_switch > 0
                             ? spec.nodes_per_switch
                             : spec.nodes;
  const double uplink_gbps =
      spec.uplink_gbps > 0 ? spec.uplink_gbps : per_switch * spec.inter_node_gbps;
  std::vector<NodeZone> nodes;
  std::vector<sg4::SplitDuplexLink*> nics, uplinks;
  for (int n = 0; n < spec.nodes; ++n) {
    nodes.push_back(create_node(spec, fabric, n));
    nics.push_back(fabric->create_split_duplex_link(
        fmt::format("node{}-nic", n),
        bytes_per_s(spec.inter_node_gbps * spec.inter_node_efficiency)));
    nics.back()->set_latency(spec.inter_node_latency_s / 2);
    hosts.by_node.push_back(nodes.back().gpus);
  }
  for (int s = 0; s < spec.nodes / per_switch; ++s) {
    uplinks.push_back(fabric->create_split_duplex_link(
        fmt::format("leaf{}-uplink", s), bytes_per_s(uplink_gbps * spec.inter_node_efficiency)));
    uplinks.back()->set_latency(spec.inter_node_latency_s / 2);
  }
  using Dir = sg4::LinkInRoute::Direction;
  for (int i = 0; i < spec.nodes; ++i) {
    for (int j = 0; j < spec.nodes; ++j) {
      if (i == j) continue;
      std::vector<sg4::LinkInRoute> route = {sg4::LinkInRoute(nics[i], Dir::UP)};
      if (i / per_switch != j / per_switch) {
        route.emplace_back(uplinks[i / per_switch], Dir::UP);
        route.emplace_back(uplinks[j / per_switch], Dir::DOWN);
      }
      route.emplace_back(nics[j], Dir::DOWN);
      fabric->add_route(nodes[i].zone->get_netpoint(), nodes[j].zone->get_netpoint(),
                        nodes[i].gateway, nodes[j].gateway, route, false);
    }
  }
  fabric->seal();
}

// torus and dragonfly: SimGrid's cluster zones with a node star zone at each leaf.
void build_cluster_zone(const ClusterSpec& spec, PlatformHosts& hosts) {
  hosts.by_node.resize(static_cast<size_t>(spec.nodes));
  auto leaf = [&spec, &hosts](sg4::NetZone* zone, const std::vector<unsigned long>& /*coord*/,
                              unsigned long id) {
    NodeZone node = create_node(spec, zone, static_cast<int>(id));
    hosts.by_node[id] = node.gpus;
    return std::make_pair(node.zone->get_netpoint(), node.gateway);
  };
  const sg4::ClusterCallbacks callbacks(leaf);
  const double bandwidth = bytes_per_s(spec.inter_node_gbps * spec.inter_node_efficiency);
  const double latency = spec.inter_node_latency_s / 2;
  sg4::NetZone* fabric = nullptr;
  if (spec.topology == Topology::kTorus) {
    std::vector<unsigned long> dims;
    for (int d : effective_torus_dims(spec)) dims.push_back(static_cast<unsigned long>(d));
    fabric = sg4::create_torus_zone("fabric", nullptr, dims, callbacks, bandwidth, latency,
                                    sg4::Link::SharingPolicy::SPLITDUPLEX);
  } else {
    const auto groups = static_cast<unsigned>(effective_dragonfly_groups(spec));
    const auto routers = static_cast<unsigned>(spec.nodes) / groups;
    fabric = sg4::create_dragonfly_zone("fabric", nullptr, {{groups, 1}, {1, 1}, {routers, 1}, 1},
                                        callbacks, bandwidth, latency,
                                        sg4::Link::SharingPolicy::SPLITDUPLEX);
  }
  fabric->seal();
}

void load_platform_file(const ClusterSpec& spec, PlatformHosts& hosts) {
  try {
    sg4::Engine::get_instance()->load_platform(spec.platform_file);
  } catch (const simgrid::ParseError& e) {
    throw InvalidArgument(
        fmt::format("platform file '{}' is malformed: {}", spec.platform_file, e.what()));
  } catch (const std::exception& e) {
    throw InvalidArgument(
        fmt::format("platform file '{}' could not be loaded: {}", spec.platform_file, e.what()));
  }
  std::vector<sg4::Host*> all = sg4::Engine::get_instance()->get_all_hosts();
  std::sort(all.begin(), all.end(),
            [](const sg4::Host* a, const sg4::Host* b) { return a->get_name() < b->get_name(); });
  if (static_cast<int>(all.size()) < spec.gpus()) {
    throw InvalidArgument(
        fmt::format("platform file '{}' has {} hosts, expected at least {} ({} nodes x {} GPUs)",
                    spec.platform_file, all.size(), spec.gpus(), spec.nodes, spec.gpus_per_node));
  }
  for (int n = 0; n < spec.nodes; ++n) {
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(n) * spec.gpus_per_node;
    hosts.by_node.emplace_back(first, first + spec.gpus_per_node);
  }
}

}  // namespace

PlatformHosts build_platform(const ClusterSpec& spec) {
  spec.validate();
  configure_network_model(spec);
  PlatformHosts hosts;
  if (!spec.platform_file.empty()) {
    load_platform_file(spec, hosts);
  } else if (spec.topology == Topology::kStar || spec.topology == Topology::kFatTree) {
    build_switched(spec, hosts);
  } else {
    build_cluster_zone(spec, hosts);
  }
  return hosts;
}

}  // namespace compopt::net
