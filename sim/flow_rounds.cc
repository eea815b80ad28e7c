#include "sim/flow_rounds.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <simgrid/s4u.hpp>
#include <string_view>

#include "sim/backend/sim_world.h"
#include "sim/flow_post.h"

namespace compopt::sim {

namespace {

namespace sg4 = simgrid::s4u;

sg4::Host* host_of(const net::PlatformHosts& hosts, int gpu, int gpus_per_node) {
  return hosts
      .by_node[static_cast<size_t>(gpu / gpus_per_node)][static_cast<size_t>(gpu % gpus_per_node)];
}

// Starts every flow of the round (each sender's flows one after another); the time until
// the last one arrived.
double time_round(const net::ClusterSpec& cluster, const net::PlatformHosts& hosts,
                  const FlowRound& round) {
  const int g = cluster.gpus_per_node;
  std::vector<PlannedFlow> planned;
  planned.reserve(round.flows.size());
  for (const Flow& f : round.flows) {
    planned.push_back({.src = host_of(hosts, f.src, g),
                       .dst = host_of(hosts, f.dst, g),
                       .bytes = static_cast<uint64_t>(std::llround(f.bytes)),
                       .sender = f.src,
                       .crosses_nodes = f.src / g != f.dst / g});
  }
  return time_flows(cluster, planned);
}

FlowTiming time_job(const net::ClusterSpec& cluster, const net::PlatformHosts& hosts,
                    const std::vector<FlowRound>& rounds) {
  FlowTiming out;
  const FlowTraffic traffic = flow_traffic(cluster, rounds);
  out.bytes_per_gpu = traffic.bytes_per_gpu;
  out.inter_node_bytes = traffic.inter_node_bytes;
  double one = 0;
  const FlowRound* previous = nullptr;
  for (const FlowRound& round : rounds) {
    if (previous == nullptr || previous->flows != round.flows)
      one = time_round(cluster, hosts, round);
    const double start = out.seconds;
    out.seconds += round.repeat * one;
    if (previous != nullptr && std::string_view(previous->phase) == round.phase) {
      out.spans.back().end_s = out.seconds;
    } else {
      out.spans.push_back({.name = round.phase, .start_s = start, .end_s = out.seconds});
    }
    previous = &round;
  }
  return out;
}

}  // namespace

FlowTraffic flow_traffic(const net::ClusterSpec& cluster, const std::vector<FlowRound>& rounds) {
  const int g = cluster.gpus_per_node;
  std::vector<double> sent(static_cast<size_t>(cluster.gpus()), 0.0);
  FlowTraffic out;
  for (const FlowRound& round : rounds) {
    for (const Flow& f : round.flows) {
      sent[static_cast<size_t>(f.src)] += round.repeat * f.bytes;
      if (f.src / g != f.dst / g) out.inter_node_bytes += round.repeat * f.bytes / cluster.nodes;
    }
  }
  out.bytes_per_gpu = sent.empty() ? 0.0 : *std::max_element(sent.begin(), sent.end());
  return out;
}

std::vector<FlowTiming> simulate_flow_jobs(const net::ClusterSpec& cluster,
                                           const std::vector<std::vector<FlowRound>>& jobs) {
  std::vector<FlowTiming> out;
  std::exception_ptr failure;
  run_engine(cluster, [&](const net::PlatformHosts& hosts) {
    sg4::Actor::create("flow-rounds", hosts.by_node[0][0], [&] {
      try {
        for (const std::vector<FlowRound>& job : jobs) out.push_back(time_job(cluster, hosts, job));
      } catch (...) {
        failure = std::current_exception();
      }
    });
  });
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace compopt::sim
