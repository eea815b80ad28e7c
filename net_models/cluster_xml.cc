#include "net_models/cluster_xml.h"

#include <fmt/format.h>

#include <iterator>

#include "core/util/error.h"
#include "net_models/cluster_layout.h"

namespace compopt::net {

namespace {

using Out = fmt::memory_buffer;

void write_link(Out& out, const LayoutLink& link, const char* indent) {
  fmt::format_to(std::back_inserter(out),
                 "{}<link id=\"{}\" bandwidth=\"{:.17g}Bps\" latency=\"{:.17g}s\" "
                 "sharing_policy=\"{}\"/>\n",
                 indent, link.name, link.bytes_per_s, link.latency_s,
                 link.fatpipe ? "FATPIPE" : "SPLITDUPLEX");
}

// A route with the given (link, direction) hops; a FATPIPE link has no direction.
void write_route(Out& out, const char* tag, const std::string& ends,
                 const std::vector<LinkHop>& hops, const std::vector<LayoutLink>& links,
                 const char* indent) {
  fmt::format_to(std::back_inserter(out), "{}<{} {} symmetrical=\"NO\">", indent, tag, ends);
  for (const LinkHop& hop : hops) {
    const LayoutLink& link = links[hop.link];
    fmt::format_to(std::back_inserter(out), "<link_ctn id=\"{}\"{}/>", link.name,
                   link.fatpipe ? "" : (hop.up ? " direction=\"UP\"" : " direction=\"DOWN\""));
  }
  fmt::format_to(std::back_inserter(out), "</{}>\n", tag);
}

// A Full zone: hosts, the gateway router, GPU links, and the routes of a star (host to
// host over both GPU links, host to gateway and back over one).
void write_group(Out& out, const LayoutGroup& group, const std::vector<LayoutLink>& links) {
  fmt::format_to(std::back_inserter(out), "    <zone id=\"{}\" routing=\"Full\">\n", group.name);
  for (const std::string& host : group.hosts) {
    fmt::format_to(std::back_inserter(out), "      <host id=\"{}\" speed=\"{:.17g}f\"/>\n", host,
                   kHostFlops);
  }
  fmt::format_to(std::back_inserter(out), "      <router id=\"{}\"/>\n", group.gateway);
  for (const size_t l : group.host_links) write_link(out, links[l], "      ");
  const size_t n = group.hosts.size();
  for (size_t a = 0; a < n; ++a) {
    const LinkHop up{group.host_links[a], true}, down{group.host_links[a], false};
    for (size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      write_route(out, "route",
                  fmt::format("src=\"{}\" dst=\"{}\"", group.hosts[a], group.hosts[b]),
                  {up, {group.host_links[b], false}}, links, "      ");
    }
    write_route(out, "route", fmt::format("src=\"{}\" dst=\"{}\"", group.hosts[a], group.gateway),
                {up}, links, "      ");
    write_route(out, "route", fmt::format("src=\"{}\" dst=\"{}\"", group.gateway, group.hosts[a]),
                {down}, links, "      ");
  }
  fmt::format_to(std::back_inserter(out), "    </zone>\n");
}

void check_exportable(const ClusterSpec& spec) {
  spec.validate();
  if (!spec.platform_file.empty()) {
    throw InvalidArgument(
        fmt::format("cluster '{}' already comes from the platform file '{}': nothing to export",
                    spec.name, spec.platform_file));
  }
  if (spec.topology != Topology::kStar && spec.topology != Topology::kFatTree) {
    throw InvalidArgument(fmt::format(
        "cluster '{}': a {} platform cannot be exported: it is built from SimGrid's {} zone "
        "with a node zone at each leaf, which SimGrid's platform XML cannot express (star and "
        "fat-tree clusters can be exported)",
        spec.name, topology_name(spec.topology), topology_name(spec.topology)));
  }
}

}  // namespace

std::string platform_xml(const ClusterSpec& spec) {
  check_exportable(spec);
  const ClusterLayout layout(spec, true);
  Out out;
  fmt::format_to(std::back_inserter(out),
                 "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
                 "\"https://simgrid.org/simgrid.dtd\">\n<!-- compopt cluster '{}': {} nodes x {} "
                 "GPUs, {}, {} NIC(s) per node{}. The network model ({}) and its factors come "
                 "from the cluster that loads this file. -->\n"
                 "<platform version=\"4.1\">\n  <zone id=\"fabric\" routing=\"Full\">\n",
                 spec.name, spec.nodes, spec.gpus_per_node, topology_name(spec.topology),
                 spec.nics_per_node, spec.rail_optimized ? ", rail-optimised" : "",
                 spec.network_model);
  for (const LayoutGroup& group : layout.groups()) write_group(out, group, layout.links());
  for (const LayoutLink& link : layout.links()) {
    if (link.group < 0) write_link(out, link, "    ");
  }
  const auto& groups = layout.groups();
  for (size_t a = 0; a < groups.size(); ++a) {
    for (size_t b = 0; b < groups.size(); ++b) {
      if (a == b) continue;
      write_route(out, "zoneRoute",
                  fmt::format("src=\"{}\" dst=\"{}\" gw_src=\"{}\" gw_dst=\"{}\"", groups[a].name,
                              groups[b].name, groups[a].gateway, groups[b].gateway),
                  layout.route(a, b), layout.links(), "    ");
    }
  }
  fmt::format_to(std::back_inserter(out), "  </zone>\n</platform>\n");
  return fmt::to_string(out);
}

}  // namespace compopt::net
