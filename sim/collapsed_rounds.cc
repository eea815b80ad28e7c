#include "sim/collapsed_rounds.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <simgrid/s4u.hpp>
#include <tuple>

#include "core/util/error.h"
#include "sim/backend/sim_world.h"
#include "sim/flow_post.h"

namespace compopt::sim {

namespace sg4 = simgrid::s4u;

namespace {

struct Flow {
  int src_node = 0, src_local = 0, dst_node = 0, dst_local = 0;
  bool crosses = false;
};

// The round's flows on the mirror: node 0's pattern from every mirror node; a flow that
// leaves node 0 on the full cluster goes to the other mirror node. Node 0's come first.
std::vector<Flow> mirror_flows(const ShiftRound& round, const net::ClusterSpec& cluster,
                               int mirror_nodes) {
  const int g = cluster.gpus_per_node;
  std::vector<Flow> flows;
  for (int q = 0; q < mirror_nodes; ++q) {
    for (int a = 0; a < g; ++a) {
      const int peer = round_peer(round.scope, round.shift, a, cluster.nodes, g);
      const bool crosses = peer / g != 0;
      flows.push_back({q, a, crosses ? 1 - q : q, peer % g, crosses});
    }
  }
  return flows;
}

// Starts every flow together (as its sender's first message of the round); the time
// until the last one arrived.
double time_round(const net::ClusterSpec& cluster, const net::PlatformHosts& hosts,
                  const std::vector<Flow>& flows, uint64_t bytes) {
  const int g = cluster.gpus_per_node;
  std::vector<PlannedFlow> planned;
  planned.reserve(flows.size());
  for (const Flow& f : flows) {
    planned.push_back(
        {.src = hosts.by_node[static_cast<size_t>(f.src_node)][static_cast<size_t>(f.src_local)],
         .dst = hosts.by_node[static_cast<size_t>(f.dst_node)][static_cast<size_t>(f.dst_local)],
         .bytes = bytes,
         .sender = f.src_node * g + f.src_local,
         .crosses_nodes = f.crosses});
  }
  return time_flows(cluster, planned);
}

using RoundKey = std::tuple<RoundScope, int, uint64_t>;

class JobTimer {
 public:
  JobTimer(const net::ClusterSpec& cluster, const net::PlatformHosts& hosts)
      : cluster_(cluster), hosts_(hosts), mirror_nodes_(static_cast<int>(hosts.by_node.size())) {}

  CollapsedTiming time(const RoundJob& job) {
    const auto g = static_cast<size_t>(cluster_.gpus_per_node);
    std::vector<double> sent(g, 0.0), crossing(g, 0.0);  // node 0's GPUs
    CollapsedTiming out;
    RoundSpans spans;
    for (const ShiftRound& round : job.rounds) {
      const auto bytes =
          static_cast<uint64_t>(std::llround(job.wire.simulated_bytes(round.real_bytes)));
      const std::vector<Flow> flows = mirror_flows(round, cluster_, mirror_nodes_);
      const RoundKey key{round.scope, round.shift, bytes};
      auto it = seconds_.find(key);
      if (it == seconds_.end())
        it = seconds_.emplace(key, time_round(cluster_, hosts_, flows, bytes)).first;
      for (size_t a = 0; a < g; ++a) {
        sent[a] += round.repeat * static_cast<double>(bytes);
        if (flows[a].crosses) crossing[a] += round.repeat * static_cast<double>(bytes);
      }
      const double start = out.seconds;
      out.seconds += round.repeat * it->second;
      spans.add(round, start, out.seconds);
    }
    out.spans = spans.finish();
    out.bytes_per_gpu = *std::max_element(sent.begin(), sent.end());
    for (double b : crossing) out.inter_node_bytes += b;
    return out;
  }

 private:
  const net::ClusterSpec& cluster_;
  const net::PlatformHosts& hosts_;
  int mirror_nodes_;
  std::map<RoundKey, double> seconds_;
};

}  // namespace

bool collapsible(const net::ClusterSpec& cluster) {
  if (!cluster.platform_file.empty()) return false;
  // A rail's uplink carries the cross-rail flows of every node; sized from the node count it
  // scales with them (the mirror's is 2/nodes of it), a fixed rate does not.
  if (cluster.rail_optimized && cluster.uplink_gbps != 0) return false;
  if (cluster.topology == net::Topology::kStar) return true;
  return cluster.topology == net::Topology::kFatTree &&
         (cluster.nodes_per_switch == 0 || cluster.nodes_per_switch >= cluster.nodes);
}

net::ClusterSpec mirror_cluster(const net::ClusterSpec& cluster) {
  net::ClusterSpec mirror = cluster;
  mirror.nodes = std::min(cluster.nodes, 2);
  mirror.nodes_per_switch = 0;
  return mirror;
}

std::vector<CollapsedTiming> simulate_collapsed(const net::ClusterSpec& cluster,
                                                const std::vector<RoundJob>& jobs) {
  if (!collapsible(cluster)) {
    throw InvalidArgument("simulate_collapsed: cluster '" + cluster.name +
                          "' is not a star of identical nodes; expected a generated star or "
                          "single-leaf fat-tree without rails");
  }
  std::vector<CollapsedTiming> out;
  std::exception_ptr failure;
  run_engine(mirror_cluster(cluster), [&](const net::PlatformHosts& hosts) {
    sg4::Actor::create("collapsed-rounds", hosts.by_node[0][0], [&] {
      try {
        JobTimer timer(cluster, hosts);
        for (const RoundJob& job : jobs) out.push_back(timer.time(job));
      } catch (...) {
        failure = std::current_exception();
      }
    });
  });
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace compopt::sim
