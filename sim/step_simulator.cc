#include "sim/step_simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string_view>
#include <utility>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/compress/compressor.h"
#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"
#include "net_models/compression_cost.h"
#include "net_models/compute_model.h"
#include "sim/allreduce_algorithm.h"
#include "sim/backend/sim_transport.h"
#include "sim/backend/sim_world.h"
#include "sim/collapsed_rounds.h"
#include "sim/flow_rounds.h"
#include "sim/overlap_mode.h"
#include "sim/proxy_wire.h"
#include "sim/ring_pipeline.h"
#include "sim/round_timing.h"

namespace compopt::sim {

namespace {

struct Stage {
  std::string name;
  CommScheme scheme = CommScheme::kRing;
  std::string compressor;  // empty for the ring
  StageOverlap overlap = StageOverlap::kAfterBackward;
  double step_bytes_ratio = 1.0;
  // The collective's vector in parameters' worth of elements, and the share of its time and
  // traffic a step is charged (1/period; an all-gather is half of a ring allreduce).
  double vector_scale = 1.0;
  double charge_scale = 1.0;
  int overlap_steps = 0;
  bool ring_only = false;   // an all-gather: NCCL runs it as a ring whatever the allreduce's choice
  std::string charge_note;  // appended to the algorithm charged, e.g. "all-gather, every 4 steps"
};

// Elements of a rank-r factor pair per element of the n x n matrix it stands for: 2r/n
// (PowerSGD's P and Q), the workload's tensors taken as square; never above the matrix.
double low_rank_scale(int rank, const net::WorkloadSpec& w) {
  const double side = std::sqrt(static_cast<double>(w.parameters) / std::max(1, w.tensors));
  return std::min(1.0, 2.0 * rank / side);
}

// What a step of the stage is charged (StageSpec's period, wire_fraction, low_rank, pattern).
Stage charged_stage(const StageSpec& s, const net::WorkloadSpec& w, int gpus) {
  Stage out;
  out.name = s.name;
  out.scheme = scheme_of(s.pattern);
  out.compressor = s.compressor;
  out.overlap = s.overlap;
  out.step_bytes_ratio = s.step_bytes_ratio;
  out.vector_scale = s.wire_fraction * (s.low_rank > 0 ? low_rank_scale(s.low_rank, w) : 1.0);
  // An uncompressed message's fraction is of fp32 bytes: in the workload's wire format its
  // elements are 4 / wire_bytes as many.
  const bool uncompressed = s.pattern == CommPattern::kRing || s.pattern == CommPattern::kAllGather;
  if (uncompressed && s.wire_fraction != 1.0) out.vector_scale *= 4.0 / w.wire_bytes();
  out.charge_scale = 1.0 / s.period;
  out.overlap_steps = s.overlap_steps;
  out.charge_note = stage_volume_text(s);
  if (s.pattern == CommPattern::kAllGather) {
    // A ring all-gather of every rank's message is the gather half of a ring allreduce of all
    // of them: same rounds, half the time and traffic.
    out.vector_scale *= gpus;
    out.charge_scale *= 0.5;
    out.ring_only = true;
    out.charge_note = "all-gather" + (out.charge_note.empty() ? "" : "; " + out.charge_note);
  }
  return out;
}

// The stages the optimizer registry declares for a name or alias, as charged on `gpus` GPUs.
std::vector<Stage> stages_of(std::string_view optimizer, const net::WorkloadSpec& w, int gpus) {
  std::vector<Stage> out;
  for (const StageSpec& s : optimizer_registry().get(optimizer).stages)
    out.push_back(charged_stage(s, w, gpus));
  return out;
}

// The stage's compression over the reference compress_s is measured on (compression_cost.h):
// flat, every GPU serves 1/n of the vector; hierarchical, each GPU encodes its 1/m shard and
// the nodes share the server step. The ring compresses nothing.
double compression_scale(const Stage& stage, const net::ClusterSpec& cluster) {
  switch (stage.scheme) {
    case CommScheme::kRing:
      return 0.0;
    case CommScheme::kCompressedFlat:
      return net::relative_compression_bytes(stage.compressor, cluster.gpus(), 1.0);
    case CommScheme::kCompressedHierarchical:
      return net::relative_compression_bytes(stage.compressor, cluster.nodes,
                                             1.0 / cluster.gpus_per_node);
  }
  return 0.0;
}

struct CommMeasure {
  double seconds = 0, bytes_per_gpu = 0, inter_node_bytes = 0;
  std::vector<std::vector<PhaseSpan>> spans;  // per rank, when requested
  std::string algorithm;  // the allreduce algorithm charged (allreduce_algorithm.h) or the scheme
};

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
RoundTiming time_full_collective(Communicator& comm, const Stage& stage, const WireMap& wire,
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

// One collective of `modeled` elements on every GPU of the cluster, and whether to record
// every rank's phases.
struct CollectiveRequest {
  const Stage* stage = nullptr;
  double modeled = 0;
  bool spans = false;
};

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
  const Stage& stage = *request.stage;
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

// The uncompressed allreduce's charge (allreduce_algorithm.h): simulated transfer time (the
// ring's pipelined, ring_pipeline.h) over the algorithm's bandwidth factor plus NCCL's
// protocol latency; phases stretch in
// proportion to fill it. Compressed schemes keep their simulated time.
void charge_algorithm(const StepConfig& config, const CollectiveRequest& request,
                      const PreparedCollective& prepared, CommMeasure& m) {
  if (prepared.algorithm == nullptr) {
    m.algorithm = request.stage->scheme == CommScheme::kCompressedFlat ? "compressed-flat"
                                                                       : "compressed-hierarchical";
    return;
  }
  const AllreduceAlgorithm& a = *prepared.algorithm;
  const double bytes = request.modeled * config.workload.wire_bytes();
  const double simulated = m.seconds;
  const double transfer = a.lock_step_ring ? pipelined_ring_s(simulated, config.cluster,
                                                              ring_hop_latency(config.cluster))
                                           : simulated;
  m.seconds = transfer / a.bandwidth_factor(config.cluster) + a.latency_s(bytes, config.cluster);
  m.algorithm = a.name;
  const double stretch = simulated > 0 ? m.seconds / simulated : 1.0;
  for (std::vector<PhaseSpan>& rank_spans : m.spans) {
    for (PhaseSpan& p : rank_spans) {
      p.start_s *= stretch;
      p.end_s *= stretch;
    }
  }
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
  for (size_t k = 0; k < requests.size(); ++k)
    charge_algorithm(config, requests[k], prepared[k], out[k]);
  return out;
}

// The bucket count of an overlapped stage: `buckets`, or the implementation's bucket size
// over the `modeled`-element vector.
int bucket_count(const StepConfig& config, double modeled) {
  if (config.buckets > 0) return config.buckets;
  return default_bucket_count(implementation_profile(config.implementation), modeled,
                              config.workload.wire_bytes());
}

// The overlap mode in force: StepConfig::overlap, or under auto the implementation's issue point.
OverlapMode effective_overlap(const StepConfig& config) {
  if (config.overlap != OverlapMode::kAuto) return config.overlap;
  return implementation_profile(config.implementation).issue;
}

// Where each stage's collectives sit in a step's requests: its whole vector's, and for a
// stage that overlaps backward one bucket's (-1 otherwise).
struct StepRequests {
  std::vector<CollectiveRequest> list;
  std::vector<int> whole, bucket;
};

StepRequests step_requests(const StepConfig& config, const std::vector<Stage>& stages,
                           double modeled, bool spans) {
  StepRequests out;
  for (const Stage& stage : stages) {
    const double elements = modeled * stage.vector_scale;
    out.whole.push_back(static_cast<int>(out.list.size()));
    out.list.push_back({&stage, elements, spans});
    const bool overlap = overlaps_backward(effective_overlap(config), stage.overlap);
    out.bucket.push_back(overlap ? static_cast<int>(out.list.size()) : -1);
    if (overlap) out.list.push_back({&stage, elements / bucket_count(config, elements), spans});
  }
  return out;
}

// The stage's communication not hidden behind backward when its vector goes out in identical
// buckets of backward time beta/B and comm time c: bucket k's allreduce starts when both its
// gradients and the previous allreduce are done, so max(c, B c - (B-1) beta/B) is exposed.
// beta is the backward of the last micro-batch only: with accumulation every implementation
// synchronises once, after the last micro-batch (DDP's no_sync before it).
// Without StepConfig::buckets, the implementation's buckets (DDP's 25 MB, DeepSpeed's 5e8
// elements) or one bucket (the bucket size raised to the whole vector: the allreduce after
// backward), whichever exposes less, as a tuned run would set it. `phases` holds the whole
// collective's spans on entry.
double bucketed_comm_s(int buckets, bool buckets_given, double whole_s, CommMeasure& bucket,
                       double backward_s, StagePhases& phases) {
  const double c = bucket.seconds;
  const double exposed = std::max(c, buckets * c - (buckets - 1) * backward_s / buckets);
  const bool one_bucket = !buckets_given && whole_s < exposed;
  phases.buckets = one_bucket ? 1 : buckets;
  phases.bucket_s = one_bucket ? whole_s : c;
  if (!one_bucket) phases.spans = std::move(bucket.spans);
  return one_bucket ? whole_s : exposed;
}

// A stage that communicates once every `period` steps, or a share of its collective, pays that
// share of its communication, compression and traffic on each step.
void charge_per_step(const Stage& stage, StageTiming& t) {
  t.comm_s *= stage.charge_scale;
  t.compress_s *= stage.charge_scale;
  t.bytes_per_gpu *= stage.charge_scale;
  t.inter_node_bytes *= stage.charge_scale;
  if (!stage.charge_note.empty()) t.algorithm += " (" + stage.charge_note + ")";
}

// ZeRO-3 / FSDP: the weights all-gathered before forward, a ring all-gather of the parameters
// (half a ring allreduce of them, as charged_stage charges an all-gather). The all-gather of
// backward and the reduce-scatter of the gradients make up the stage's own allreduce.
Stage parameter_gather_stage() {
  Stage out;
  out.name = "parameter_all_gather";
  out.ring_only = true;
  out.charge_scale = 0.5;
  return out;
}

// ZeRO-2 / 3 reduce the gradients after every micro-batch: each micro-batch's backward hides
// its own buckets as the last one does, so the step pays the exposed time and traffic
// `grad_accum` times. Only the gradient's own collective (a stage bucketed behind backward in
// the registry); a vector the optimizer step forms is sent once per step.
void charge_every_micro_batch(int grad_accum, StageTiming& t) {
  t.comm_s *= grad_accum;
  t.bytes_per_gpu *= grad_accum;
  t.inter_node_bytes *= grad_accum;
}

// Adds the forward all-gather of the weights to a row, exposed (not hidden behind forward),
// once per micro-batch.
void charge_parameter_gather(const CommMeasure& gather, const Stage& stage, int grad_accum,
                             StageTiming& t) {
  const double share = stage.charge_scale * grad_accum;
  t.comm_s += gather.seconds * share;
  t.bytes_per_gpu += gather.bytes_per_gpu * share;
  t.inter_node_bytes += gather.inter_node_bytes * share;
  t.algorithm += " + forward parameter all-gather (" + gather.algorithm + "; exposed)";
}

}  // namespace

std::vector<std::string> step_optimizer_names() { return optimizer_registry().names(); }

void check_step_optimizer(std::string_view optimizer) { optimizer_registry().get(optimizer); }

namespace {

// The checks simulate_step makes before simulating; throws InvalidArgument.
void check_step_config(const StepConfig& config) {
  config.workload.validate();
  config.cluster.validate();
  choose_allreduce_algorithm(config.cluster.allreduce_algorithm, 0, config.cluster);
  implementation_profile(config.implementation);
  if (config.batch_per_gpu < 0) {
    throw InvalidArgument(fmt::format("batch_per_gpu = {}, expected >= 1", config.batch_per_gpu));
  }
  if (config.grad_accum < 1) {
    throw InvalidArgument(fmt::format("grad_accum = {}, expected >= 1", config.grad_accum));
  }
  if (config.buckets < 0)
    throw InvalidArgument(fmt::format("buckets = {}, expected >= 0", config.buckets));
}

// The row's communication: the whole collective, or for a stage overlapping backward its
// buckets behind the last micro-batch's backward; sets the buckets used.
void charge_comm(const StepConfig& config, const Stage& stage, double elements, CommMeasure& whole,
                 CommMeasure* bucket, StageTiming& t, StagePhases& stage_phases) {
  t.bytes_per_gpu = whole.bytes_per_gpu;
  t.inter_node_bytes = whole.inter_node_bytes;
  t.comm_s = whole.seconds;
  t.algorithm = whole.algorithm;
  t.buckets = 1;
  if (bucket != nullptr) {
    const double last_backward_s = t.backward_compute_s / config.grad_accum;
    t.comm_s = bucketed_comm_s(bucket_count(config, elements), config.buckets > 0, whole.seconds,
                               *bucket, last_backward_s, stage_phases);
    t.buckets = stage_phases.buckets;
    if (stage_phases.buckets > 1 || config.buckets > 0) t.algorithm = bucket->algorithm;
  } else if (stage.overlap == StageOverlap::kBehindInnerSteps &&
             config.overlap == OverlapMode::kAuto) {
    const double inner_s = t.forward_s + t.backward_compute_s + t.step_s;
    t.comm_s = std::max(0.0, t.comm_s - stage.overlap_steps * inner_s);
  }
}

}  // namespace

std::vector<StageTiming> simulate_step(const StepConfig& config, std::vector<StagePhases>* phases) {
  check_step_config(config);
  const ImplementationProfile& profile = implementation_profile(config.implementation);
  const int batch =
      config.batch_per_gpu > 0 ? config.batch_per_gpu : config.workload.default_batch_per_gpu;
  const ImplementedWorkload implemented =
      implemented_workload(config.workload, profile, config.optimizer);
  const net::WorkloadSpec& w = implemented.workload;
  const double modeled = static_cast<double>(w.parameters);
  const net::ComputeTimes compute =
      net::compute_times(w, config.cluster.gpu, batch, config.grad_accum);
  const double step_share = profile.sharded.optimizer ? 1.0 / config.cluster.gpus() : 1.0;
  const std::vector<Stage> stages = stages_of(config.optimizer, w, config.cluster.gpus());
  StepRequests requests = step_requests(config, stages, modeled, phases != nullptr);
  const Stage gather_stage = parameter_gather_stage();
  if (profile.gathers_parameters) requests.list.push_back({&gather_stage, modeled, false});
  std::vector<CommMeasure> measured = simulate_collectives(config, requests.list);
  std::vector<StageTiming> rows;
  for (size_t i = 0; i < stages.size(); ++i) {
    const Stage& stage = stages[i];
    StageTiming t;
    t.stage = stage.name;
    t.forward_s = compute.forward_s;
    t.backward_compute_s = compute.backward_s;
    t.compress_s = compute.compress_s * compression_scale(stage, config.cluster);
    t.step_s =
        compute.step_s * stage.step_bytes_ratio / implemented.step_reference_ratio * step_share;
    t.compute_utilization = compute.utilization;
    StagePhases stage_phases;
    CommMeasure& whole = measured[static_cast<size_t>(requests.whole[i])];
    stage_phases.spans = std::move(whole.spans);
    CommMeasure* bucket =
        requests.bucket[i] >= 0 ? &measured[static_cast<size_t>(requests.bucket[i])] : nullptr;
    charge_comm(config, stage, modeled * stage.vector_scale, whole, bucket, t, stage_phases);
    charge_per_step(stage, t);
    if (profile.reduces_every_micro_batch && stage.overlap == StageOverlap::kBehindBackward)
      charge_every_micro_batch(config.grad_accum, t);
    if (profile.gathers_parameters)
      charge_parameter_gather(measured.back(), gather_stage, config.grad_accum, t);
    t.step_time_s = t.forward_s + t.backward_compute_s + t.comm_s + t.compress_s + t.step_s;
    t.throughput_samples_s =
        static_cast<double>(config.cluster.gpus()) * batch * config.grad_accum / t.step_time_s;
    rows.push_back(t);
    if (phases != nullptr) phases->push_back(std::move(stage_phases));
  }
  return rows;
}

}  // namespace compopt::sim
