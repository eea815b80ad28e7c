#include "net_models/platform_builder.h"

#include <fmt/format.h>
#include <xbt/log.h>

#include <algorithm>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <string>

#include "core/util/error.h"
#include "net_models/cluster_layout.h"

namespace compopt::net {

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kTcpGamma = 1e12;  // no TCP-window cap on bandwidth (docs/simulator.md)

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

// The receiving side of a NIC (or GPU) link follows its transport's incast law: SimGrid
// asks the callback for the capacity whenever the number of flows on it changes.
void apply_incast(sg4::SplitDuplexLink* link, const TransportProfile& transport) {
  if (!transport.has_incast()) return;
  link->get_link_down()->set_sharing_policy(sg4::Link::SharingPolicy::NONLINEAR,
                                            [transport](double capacity, int flows) {
                                              return incast_capacity(transport, capacity, flows);
                                            });
}

sg4::Link* create_link(sg4::NetZone* zone, const LayoutLink& spec, const ClusterSpec& cluster) {
  sg4::Link* link = nullptr;
  if (spec.fatpipe) {
    link = zone->create_link(spec.name, spec.bytes_per_s);
    link->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
  } else {
    sg4::SplitDuplexLink* duplex = zone->create_split_duplex_link(spec.name, spec.bytes_per_s);
    if (spec.nic) apply_incast(duplex, cluster.inter_node_transport);
    if (spec.group >= 0) apply_incast(duplex, cluster.intra_node_transport);
    link = duplex;
  }
  link->set_latency(spec.latency_s);
  return link;
}

struct GroupZone {
  sg4::NetZone* zone = nullptr;
  simgrid::kernel::routing::NetPoint* gateway = nullptr;
};

using Dir = sg4::LinkInRoute::Direction;

// A star zone of GPU hosts around a gateway router, one GPU link each (`links`: those of
// the layout, already created).
GroupZone create_group(const LayoutGroup& group, sg4::NetZone* parent) {
  GroupZone out;
  out.zone = sg4::create_star_zone(group.name);
  out.zone->set_parent(parent);
  out.gateway = out.zone->create_router(group.gateway);
  for (const std::string& host : group.hosts) out.zone->create_host(host, kHostFlops);
  return out;
}

void seal_group(const LayoutGroup& group, const GroupZone& zone,
                const std::vector<sg4::Link*>& links) {
  zone.zone->add_route(zone.gateway, nullptr, nullptr, nullptr, {}, true);
  for (size_t h = 0; h < group.hosts.size(); ++h) {
    zone.zone->add_route(sg4::Host::by_name(group.hosts[h])->get_netpoint(), nullptr, nullptr,
                         nullptr, {sg4::LinkInRoute(links[group.host_links[h]], Dir::UP)}, true);
  }
  zone.zone->seal();
}

void add_hosts(const LayoutGroup& group, PlatformHosts& hosts) {
  for (const std::string& host : group.hosts) {
    hosts.by_node[static_cast<size_t>(group.node)].push_back(sg4::Host::by_name(host));
  }
}

std::vector<sg4::Link*> create_links(const ClusterSpec& spec, const ClusterLayout& layout,
                                     sg4::NetZone* fabric, const std::vector<GroupZone>& zones) {
  std::vector<sg4::Link*> links;
  for (const LayoutLink& link : layout.links()) {
    links.push_back(create_link(
        link.group < 0 ? fabric : zones[static_cast<size_t>(link.group)].zone, link, spec));
  }
  return links;
}

// The layout's group zones (sealed, hosts listed by node) and links inside `fabric`; the
// fabric's own routes are the caller's.
std::vector<sg4::Link*> fill_fabric(const ClusterSpec& spec, const ClusterLayout& layout,
                                    sg4::NetZone* fabric, std::vector<GroupZone>& zones,
                                    PlatformHosts& hosts) {
  for (const LayoutGroup& group : layout.groups()) zones.push_back(create_group(group, fabric));
  std::vector<sg4::Link*> links = create_links(spec, layout, fabric, zones);
  for (size_t g = 0; g < zones.size(); ++g) {
    seal_group(layout.groups()[g], zones[g], links);
    add_hosts(layout.groups()[g], hosts);
  }
  return links;
}

// Several NICs per node or several leaf switches (net_models/cluster_layout.h): one full
// zone with explicit routes between star zones of the GPUs of one NIC (O(groups^2)
// routes), the construction here that routes a node's NIC groups to each other through its
// switch and cross-leaf traffic through both uplinks.
void build_full_fabric(const ClusterSpec& spec, const ClusterLayout& layout, PlatformHosts& hosts) {
  sg4::NetZone* fabric = sg4::create_full_zone("fabric");
  std::vector<GroupZone> zones;
  const std::vector<sg4::Link*> links = fill_fabric(spec, layout, fabric, zones, hosts);
  for (size_t a = 0; a < zones.size(); ++a) {
    for (size_t b = 0; b < zones.size(); ++b) {
      if (a == b) continue;
      std::vector<sg4::LinkInRoute> route;
      for (const LinkHop& hop : layout.route(a, b)) {
        route.emplace_back(links[hop.link], hop.up ? Dir::UP : Dir::DOWN);
      }
      fabric->add_route(zones[a].zone->get_netpoint(), zones[b].zone->get_netpoint(),
                        zones[a].gateway, zones[b].gateway, route, false);
    }
  }
  fabric->seal();
}

// One NIC per node and one leaf switch: the fabric is a star zone holding the node zones,
// so routing takes constant time and the platform O(nodes) routes. Node a to node b
// crosses NIC a up, NIC b down: the links, directions and order of build_full_fabric's
// explicit routes. (Leaf star zones inside it, three levels of zones, lose the uplinks
// from cross-leaf routes in SimGrid 3.32: several leaves keep the full zone.)
void build_star_fabric(const ClusterSpec& spec, const ClusterLayout& layout, PlatformHosts& hosts) {
  sg4::NetZone* fabric = sg4::create_star_zone("fabric");
  std::vector<GroupZone> zones;
  const std::vector<sg4::Link*> links = fill_fabric(spec, layout, fabric, zones, hosts);
  for (size_t g = 0; g < zones.size(); ++g) {
    fabric->add_route(zones[g].zone->get_netpoint(), nullptr, zones[g].gateway, nullptr,
                      {sg4::LinkInRoute(links[layout.nic_link(g)], Dir::UP)}, true);
  }
  fabric->seal();
}

// star and fat-tree: a star zone where each node has one NIC group under one leaf switch,
// else the full zone.
void build_switched(const ClusterSpec& spec, PlatformHosts& hosts) {
  const ClusterLayout layout(spec, false);
  hosts.by_node.resize(static_cast<size_t>(spec.nodes));
  if (layout.groups().size() == static_cast<size_t>(spec.nodes) && layout.leaf_count() == 1) {
    build_star_fabric(spec, layout, hosts);
  } else {
    build_full_fabric(spec, layout, hosts);
  }
}

// torus and dragonfly: SimGrid's cluster zones with a node star zone at each leaf (one
// NIC per node: the layout's group n is node n).
void build_cluster_zone(const ClusterSpec& spec, PlatformHosts& hosts) {
  hosts.by_node.resize(static_cast<size_t>(spec.nodes));
  const ClusterLayout layout(spec, false);
  auto leaf = [&layout, &hosts, &spec](sg4::NetZone* parent,
                                       const std::vector<unsigned long>& /*coord*/,
                                       unsigned long id) {
    const LayoutGroup& group = layout.groups()[id];
    const GroupZone zone = create_group(group, parent);
    std::vector<sg4::Link*> links(layout.links().size());
    for (const size_t l : group.host_links)
      links[l] = create_link(zone.zone, layout.links()[l], spec);
    seal_group(group, zone, links);
    for (const std::string& host : group.hosts)
      hosts.by_node[id].push_back(sg4::Host::by_name(host));
    return std::make_pair(zone.zone->get_netpoint(), zone.gateway);
  };
  const sg4::ClusterCallbacks callbacks(leaf);
  const double bandwidth = bytes_per_s(spec.nic_effective_gbps());
  const double latency = spec.inter_node_latency_s / 2;
  sg4::NetZone* fabric = nullptr;
  if (spec.topology == Topology::kTorus) {
    std::vector<unsigned long> dims;
    // A dimension of extent 1 has no links (SimGrid would wire a node to itself, twice).
    for (int d : effective_torus_dims(spec))
      if (d > 1) dims.push_back(static_cast<unsigned long>(d));
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
  } else if (spec.topology == Topology::kStar || spec.topology == Topology::kFatTree ||
             spec.nodes == 1) {  // one node has no fabric to arrange
    build_switched(spec, hosts);
  } else {
    build_cluster_zone(spec, hosts);
  }
  return hosts;
}

}  // namespace compopt::net
