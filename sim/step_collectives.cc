#include "sim/step_collectives.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/compress/compressor.h"
#include "core/util/error.h"
#include "sim/allreduce_algorithm.h"
#include "sim/backend/sim_transport.h"
#include "sim/backend/sim_world.h"
#include "sim/collapsed_rounds.h"
#include "sim/flow_costs.h"
#include "sim/flow_rounds.h"
#include "sim/framework_collectives.h"
#include "sim/proxy_wire.h"
#include "sim/ring_pipeline.h"
#include "sim/round_timing.h"

namespace compopt::sim {

namespace {

// Phases in seconds from the start of the first: a collective's first phase starts
// with it (no simulated time passes before its first message).
std::vector<PhaseSpan> from_first_phase(std::vector<PhaseSpan> spans) {
  double origin = spans.empty() ? 0.0 : spans.front().start_s;
  for (const PhaseSpan& s : spans) origin = std::min(origin, s.start_s);
  for (PhaseSpan& s : spans) {
    s.start_s -= origin;
    s.end_s -= origin;
  }
  return spans;
}

// One full collective of the stage on a `proxy`-element vector, called by every
// rank inside run_sim; timed from a zero-cost rendezvous of all ranks, traffic counted after the
// wire map.
RoundTiming time_full_collective(Communicator& comm, const ChargedStage& stage, const WireMap& wire,
                                 size_t proxy, WirePrecision precision) {
  SimTransport& transport = SimTransport::of(comm);
  std::vector<float> x(proxy);
  for (size_t i = 0; i < proxy; ++i)
    x[i] = std::sin(0.01f * static_cast<float>(i + static_cast<size_t>(comm.rank())));
  std::unique_ptr<Compressor> codec;
  CompressedAllreduceState state;
  std::unique_ptr<HierarchicalGroups> groups;
  if (stage.scheme != CommScheme::kRing) codec = make_compressor(stage.compressor);
  if (stage.scheme == CommScheme::kCompressedFlat)
    state = CompressedAllreduceState(proxy, comm.size());
  if (stage.scheme == CommScheme::kCompressedHierarchical) {
    groups = std::make_unique<HierarchicalGroups>(HierarchicalGroups::split(comm));
    state = hierarchical_state(proxy, *groups);
  }
  transport.sync();  // every rank starts at the same simulated time, at no cost
  transport.set_wire_map(wire);
  transport.reset_wire_counters();
  const double start = comm.now();
  switch (stage.scheme) {
    case CommScheme::kRing:
      comm.allreduce(x, ReduceOp::kMean, precision);
      break;
    case CommScheme::kCompressedFlat:
      comm.compressed_allreduce(x, *codec, state, RandomKey{.seed = 1});
      break;
    case CommScheme::kCompressedHierarchical:
      comm.hierarchical_compressed_allreduce(*groups, x, *codec, state, RandomKey{.seed = 1});
      break;
  }
  return {.seconds = comm.now() - start,
          .bytes_sent = transport.wire_bytes_sent(),
          .inter_node_bytes = transport.wire_inter_node_bytes_sent()};
}

// A request made ready: its wire map and, timed by symmetry, its rounds; for the
// uncompressed allreduce the algorithm charged and, for patterns given as flows, its flows.
struct PreparedCollective {
  WireMap wire;
  bool by_rounds = false;
  std::vector<ShiftRound> rounds;
  const AllreduceAlgorithm* algorithm = nullptr;
  std::vector<FlowRound> flows;        // over the whole cluster (its traffic)
  std::vector<FlowRound> timed_flows;  // the same on flow_nodes nodes, when fewer (its time)
  int flow_nodes = 0;                  // nodes the flows are timed on
};

// `cluster` cut to `nodes` nodes (fewer than it has) under one switch.
net::ClusterSpec cut_cluster(const net::ClusterSpec& cluster, int nodes) {
  net::ClusterSpec cut = cluster;
  cut.nodes = nodes;
  cut.nodes_per_switch = 0;
  return cut;
}

// SimGrid 3.32 cannot cap the rate of the host-to-host flows time_flows posts (Comm::set_rate
// holds only for mailbox messages): refuse a per-flow cap where the algorithm's messages are
// timed as flows (several ring channels, the tree, NVLS) instead of aborting inside SimGrid.
void check_flows_uncapped(const net::ClusterSpec& cluster, std::string_view algorithm) {
  for (const auto& [side, t] : {std::pair{"inter_node", &cluster.inter_node_transport},
                                {"intra_node", &cluster.intra_node_transport}}) {
    if (t->flow_cap_gbps() <= 0) continue;
    throw InvalidArgument(fmt::format(
        "cluster '{}': {}_stream_gbps = {} caps each flow, which the {} allreduce's flows cannot "
        "model (several NICs, a tree or NVLS); set it only with one NIC per node and the ring, "
        "or use {}_line_rate_share for a transport that reaches a share of the NIC's rate",
        cluster.name, side, t->stream_gbps, algorithm, side));
  }
}

PreparedCollective prepare(const StepConfig& config, const CollectiveRequest& request,
                           size_t proxy) {
  const net::ClusterSpec& cluster = config.cluster;
  const ChargedStage& stage = *request.stage;
  PreparedCollective out;
  out.wire = proxy_wire_map(stage.scheme, stage.compressor, proxy, request.modeled, cluster.nodes,
                            cluster.gpus_per_node);
  if (stage.scheme == CommScheme::kRing) {
    const double bytes = request.modeled * config.workload.wire_bytes();
    out.algorithm = &choose_allreduce_algorithm(
        stage.ring_only ? std::string_view("ring") : cluster.allreduce_algorithm, bytes, cluster);
    out.flows = out.algorithm->rounds(bytes, cluster);
    out.flow_nodes = cluster.nodes;
    const int k = out.algorithm->timing_nodes;
    if (!out.flows.empty() && k > 0 && cluster.nodes > k && collapsible(cluster)) {
      out.flow_nodes = k;
      out.timed_flows = out.algorithm->rounds(bytes, cut_cluster(cluster, k));
    }
    if (!out.flows.empty()) {
      check_flows_uncapped(cluster, out.algorithm->name);
      return out;
    }
  }
  out.by_rounds = !config.full_collectives && timed_by_rounds(stage.scheme, cluster);
  if (out.by_rounds) {
    out.rounds = collective_rounds(stage.scheme, stage.compressor, proxy,
                                   config.workload.wire_bytes(), cluster);
  }
  return out;
}

// The requests `chosen` run in one run_sim on the whole cluster, one after the other from a
// zero-cost rendezvous of all ranks: the rounds by every rank (simulate_rounds) or the real
// collective in full.
void simulate_on_every_rank(const StepConfig& config,
                            const std::vector<CollectiveRequest>& requests,
                            const std::vector<PreparedCollective>& prepared, size_t proxy,
                            const std::vector<size_t>& chosen, std::vector<CommMeasure>& out) {
  const net::ClusterSpec& cluster = config.cluster;
  const auto n = static_cast<size_t>(cluster.gpus());
  const auto precision =
      config.workload.wire_bytes() == 2 ? WirePrecision::kFp16 : WirePrecision::kFp32;
  std::vector<std::vector<RoundTiming>> timing(chosen.size(), std::vector<RoundTiming>(n));
  for (const size_t k : chosen) {
    if (requests[k].spans) out[k].spans.assign(n, {});
  }
  run_sim({.cluster = cluster}, [&](Communicator& comm) {
    SimTransport& transport = SimTransport::of(comm);
    const auto r = static_cast<size_t>(comm.rank());
    for (size_t j = 0; j < chosen.size(); ++j) {
      const size_t k = chosen[j];
      transport.sync();
      transport.set_wire_map(WireMap(1.0));  // what a fresh run charges before the collective
      PhaseLog log;
      if (requests[k].spans) comm.set_phase_log(&log);
      if (prepared[k].by_rounds) transport.set_wire_map(prepared[k].wire);
      timing[j][r] =
          prepared[k].by_rounds
              ? simulate_rounds(comm, prepared[k].rounds)
              : time_full_collective(comm, *requests[k].stage, prepared[k].wire, proxy, precision);
      comm.set_phase_log(nullptr);
      if (requests[k].spans) out[k].spans[r] = from_first_phase(log.spans());
    }
  });
  for (size_t j = 0; j < chosen.size(); ++j) {
    CommMeasure& m = out[chosen[j]];
    for (const RoundTiming& t : timing[j]) {
      m.seconds = std::max(m.seconds, t.seconds);
      m.bytes_per_gpu = std::max(m.bytes_per_gpu, t.bytes_sent);
      m.inter_node_bytes += t.inter_node_bytes / cluster.nodes;
    }
  }
}

// A timing from one actor's simulation (collapsed rounds or flows), the same on every rank.
template <typename Timing>
void take_timing(const Timing& timed, bool spans, int gpus, CommMeasure& out) {
  out.seconds = timed.seconds;
  out.bytes_per_gpu = timed.bytes_per_gpu;
  out.inter_node_bytes = timed.inter_node_bytes;
  if (spans) out.spans.assign(static_cast<size_t>(gpus), timed.spans);
}

// Phases stretched in proportion to fill `seconds` where `simulated` was timed.
void stretch_spans(double simulated, double seconds, CommMeasure& m) {
  const double stretch = simulated > 0 ? seconds / simulated : 1.0;
  for (std::vector<PhaseSpan>& rank_spans : m.spans) {
    for (PhaseSpan& p : rank_spans) {
      p.start_s *= stretch;
      p.end_s *= stretch;
    }
  }
}

// The cluster's hop latencies (ring_pipeline.h), probed on first need and then kept: every
// collective of a step that corrects its lock-step rounds uses the same.
class HopLatencyOnce {
 public:
  explicit HopLatencyOnce(const net::ClusterSpec& cluster) : cluster_(cluster) {}
  const RingHopLatency& get() {
    if (!hop_) hop_ = ring_hop_latency(cluster_);
    return *hop_;
  }

 private:
  const net::ClusterSpec& cluster_;
  std::optional<RingHopLatency> hop_;
};

// The compressed allreduce's lock-step time as the implementation's framework issues its
// collectives (framework_collectives.h), or as StepConfig::compressed_collectives names.
double as_framework_issues(const StepConfig& config, const ChargedStage& stage, double lock_step_s,
                           const RingHopLatency& hop) {
  const net::ClusterSpec& cluster = config.cluster;
  const LockStepShape shape{
      .scheme = stage.scheme,
      .has_scale = make_compressor(stage.compressor)->has_scale(),
      .hop = hop,
      .inter_node_message_s = transport_between(cluster, true).message_overhead_s,
      .intra_node_message_s = transport_between(cluster, false).message_overhead_s};
  const std::string& name =
      config.compressed_collectives.empty()
          ? implementation_profile(config.implementation).compressed_collectives
          : config.compressed_collectives;
  return framework_collectives_s(lock_step_s, framework_collectives(name), shape, cluster);
}

// A collective's charge. The uncompressed allreduce (allreduce_algorithm.h): simulated
// transfer time (the ring's pipelined, ring_pipeline.h) over the algorithm's bandwidth factor
// plus NCCL's protocol latency. A compressed scheme: its simulated time as the framework issues
// the collectives. Phases stretch in proportion to fill the charge.
void charge_algorithm(const StepConfig& config, const CollectiveRequest& request,
                      const PreparedCollective& prepared, HopLatencyOnce& hop, CommMeasure& m) {
  const double simulated = m.seconds;
  if (prepared.algorithm == nullptr) {
    m.algorithm = request.stage->scheme == CommScheme::kCompressedFlat ? "compressed-flat"
                                                                       : "compressed-hierarchical";
    m.seconds = as_framework_issues(config, *request.stage, simulated, hop.get());
    stretch_spans(simulated, m.seconds, m);
    return;
  }
  const AllreduceAlgorithm& a = *prepared.algorithm;
  const double bytes = request.modeled * config.workload.wire_bytes();
  const double transfer =
      a.lock_step_ring ? pipelined_ring_s(simulated, config.cluster, hop.get()) : simulated;
  m.seconds = transfer / a.bandwidth_factor(config.cluster) + a.latency_s(bytes, config.cluster);
  m.algorithm = a.name;
  stretch_spans(simulated, m.seconds, m);
}

// The requests `flowing` (patterns given as flows), in one engine per node count they are
// timed on: their time on that many nodes, their traffic on the whole cluster (counted again
// there only when they were timed on fewer nodes).
void simulate_flows(const net::ClusterSpec& cluster, const std::vector<CollectiveRequest>& requests,
                    const std::vector<PreparedCollective>& prepared,
                    const std::vector<size_t>& flowing, std::vector<CommMeasure>& out) {
  std::map<int, std::vector<size_t>> by_nodes;
  for (const size_t k : flowing) by_nodes[prepared[k].flow_nodes].push_back(k);
  for (const auto& [nodes, group] : by_nodes) {
    std::vector<std::vector<FlowRound>> jobs;
    for (const size_t k : group)
      jobs.push_back(nodes < cluster.nodes ? prepared[k].timed_flows : prepared[k].flows);
    const std::vector<FlowTiming> timed =
        simulate_flow_jobs(nodes < cluster.nodes ? cut_cluster(cluster, nodes) : cluster, jobs);
    for (size_t j = 0; j < group.size(); ++j) {
      const size_t k = group[j];
      take_timing(timed[j], requests[k].spans, cluster.gpus(), out[k]);
      if (nodes == cluster.nodes) continue;  // timed on the whole cluster: traffic counted there
      const FlowTraffic traffic = flow_traffic(cluster, prepared[k].flows);
      out[k].bytes_per_gpu = traffic.bytes_per_gpu;
      out[k].inter_node_bytes = traffic.inter_node_bytes;
    }
  }
}

}  // namespace

// Every requested collective of a step, simulated on a proxy, in as few engines as the
// platform allows: its simulated duration (slowest rank), modeled traffic and, if
// requested, every rank's phases from the start of its collective. Patterns given as
// flows (ring channels, tree) are posted by one actor on the whole platform
// (flow_rounds.h); rounds timed by symmetry are collapsed onto a two-node mirror
// (collapsed_rounds.h) where the cluster allows it, else every rank runs the rounds
// (simulate_rounds); the rest run in full on every rank. Compute is not simulated here:
// every rank does the same work, so simulate_step composes it analytically.
std::vector<CommMeasure> simulate_collectives(const StepConfig& config,
                                              const std::vector<CollectiveRequest>& requests) {
  const net::ClusterSpec& cluster = config.cluster;
  const size_t proxy = proxy_length(cluster.gpus(), config.proxy_min);
  std::vector<PreparedCollective> prepared;
  std::vector<RoundJob> jobs;
  std::vector<size_t> collapsed, flowing, rest;
  for (size_t k = 0; k < requests.size(); ++k) {
    prepared.push_back(prepare(config, requests[k], proxy));
    if (!prepared[k].flows.empty()) {
      flowing.push_back(k);
    } else if (prepared[k].by_rounds && collapsible(cluster)) {
      collapsed.push_back(k);
      jobs.push_back({prepared[k].rounds, prepared[k].wire});
    } else {
      rest.push_back(k);
    }
  }
  std::vector<CommMeasure> out(requests.size());
  if (!rest.empty()) simulate_on_every_rank(config, requests, prepared, proxy, rest, out);
  if (!jobs.empty()) {
    const std::vector<CollapsedTiming> timed = simulate_collapsed(cluster, jobs);
    for (size_t j = 0; j < collapsed.size(); ++j)
      take_timing(timed[j], requests[collapsed[j]].spans, cluster.gpus(), out[collapsed[j]]);
  }
  if (!flowing.empty()) simulate_flows(cluster, requests, prepared, flowing, out);
  HopLatencyOnce hop(cluster);
  for (size_t k = 0; k < requests.size(); ++k)
    charge_algorithm(config, requests[k], prepared[k], hop, out[k]);
  return out;
}

}  // namespace compopt::sim
