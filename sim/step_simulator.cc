#include "sim/step_simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/compress/compressor.h"
#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"
#include "net_models/compression_cost.h"
#include "net_models/compute_model.h"
#include "sim/overlap_mode.h"
#include "sim/proxy_wire.h"
#include "sim/round_timing.h"
#include "sim/sim_transport.h"
#include "sim/sim_world.h"

namespace compopt::sim {

namespace {

constexpr double kDdpBucketBytes = 25.0 * 1024 * 1024;

struct Stage {
  std::string name;
  CommScheme scheme;
  std::string compressor;  // empty for the ring
  StageOverlap overlap = StageOverlap::kAfterBackward;
  double step_bytes_ratio = 1.0;
};

CommScheme scheme_of(CommPattern pattern) {
  switch (pattern) {
    case CommPattern::kRing:
      return CommScheme::kRing;
    case CommPattern::kCompressedFlat:
      return CommScheme::kCompressedFlat;
    case CommPattern::kCompressedHierarchical:
      return CommScheme::kCompressedHierarchical;
  }
  return CommScheme::kRing;
}

// The stages the optimizer registry declares for a name or alias.
std::vector<Stage> stages_of(std::string_view optimizer) {
  std::vector<Stage> out;
  for (const StageSpec& s : optimizer_registry().get(optimizer).stages) {
    out.push_back({s.name, scheme_of(s.pattern), s.compressor, s.overlap, s.step_bytes_ratio});
  }
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
// rank inside run_sim; timed from a barrier, traffic counted after the wire map.
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
  comm.barrier();
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

// One collective of `modeled` elements on every GPU of the cluster, simulated
// on a proxy; returns its simulated duration (slowest rank) and modeled traffic, and
// with `spans` every rank's phases from the start of its collective.
// Timed by symmetry (simulate_rounds) where timed_by_rounds allows it and the
// config does not ask for the full collectives. Compute is not simulated here: every rank does the
// same work, so it adds the same time on every rank and simulate_step composes it analytically.
CommMeasure simulate_collective(const StepConfig& config, const Stage& stage, double modeled,
                                std::vector<std::vector<PhaseSpan>>* spans = nullptr) {
  const net::ClusterSpec& cluster = config.cluster;
  const int n = cluster.gpus();
  const size_t proxy = proxy_length(n, config.proxy_min);
  const WireMap wire = proxy_wire_map(stage.scheme, stage.compressor, proxy, modeled, cluster.nodes,
                                      cluster.gpus_per_node);
  const auto precision =
      config.workload.wire_bytes() == 2 ? WirePrecision::kFp16 : WirePrecision::kFp32;
  std::vector<double> seconds(static_cast<size_t>(n)), bytes(static_cast<size_t>(n)),
      inter(static_cast<size_t>(n));
  const bool by_rounds = !config.full_collectives && timed_by_rounds(stage.scheme, cluster);
  const std::vector<ShiftRound> rounds =
      by_rounds ? collective_rounds(stage.scheme, stage.compressor, proxy,
                                    config.workload.wire_bytes(), cluster)
                : std::vector<ShiftRound>{};
  if (spans != nullptr) spans->assign(static_cast<size_t>(n), {});
  run_sim({.cluster = cluster}, [&](Communicator& comm) {
    SimTransport& transport = SimTransport::of(comm);
    const auto r = static_cast<size_t>(comm.rank());
    PhaseLog log;
    if (spans != nullptr) comm.set_phase_log(&log);
    if (by_rounds) transport.set_wire_map(wire);
    const RoundTiming timing = by_rounds
                                   ? simulate_rounds(comm, rounds)
                                   : time_full_collective(comm, stage, wire, proxy, precision);
    comm.set_phase_log(nullptr);
    seconds[r] = timing.seconds;
    bytes[r] = timing.bytes_sent;
    inter[r] = timing.inter_node_bytes;
    if (spans != nullptr) (*spans)[r] = from_first_phase(log.spans());
  });
  CommMeasure out;
  out.seconds = *std::max_element(seconds.begin(), seconds.end());
  out.bytes_per_gpu = *std::max_element(bytes.begin(), bytes.end());
  for (double b : inter) out.inter_node_bytes += b / cluster.nodes;
  return out;
}

// The stage's communication not hidden behind backward when its vector goes out in identical
// buckets of backward time beta/B and comm time c: bucket k's allreduce starts when both its
// gradients and the previous allreduce are done, so max(c, B c - (B-1) beta/B) is exposed.
// Without StepConfig::buckets, PyTorch DDP's 25 MB buckets or one bucket (bucket_cap_mb raised
// to the whole vector: the allreduce after backward), whichever exposes less, as a tuned run
// would set it. `phases` holds the whole collective's spans on entry.
double bucketed_comm_s(const StepConfig& config, const Stage& stage, double whole_s,
                       double backward_s, StagePhases* phases) {
  const double modeled = static_cast<double>(config.workload.parameters);
  const int buckets =
      config.buckets > 0
          ? config.buckets
          : std::max(1, static_cast<int>(
                            std::ceil(modeled * config.workload.wire_bytes() / kDdpBucketBytes)));
  std::vector<std::vector<PhaseSpan>> spans;
  const double c =
      simulate_collective(config, stage, modeled / buckets, phases ? &spans : nullptr).seconds;
  const double exposed = std::max(c, buckets * c - (buckets - 1) * backward_s / buckets);
  const bool one_bucket = config.buckets == 0 && whole_s < exposed;
  if (phases != nullptr) {
    phases->buckets = one_bucket ? 1 : buckets;
    phases->bucket_s = one_bucket ? whole_s : c;
    if (!one_bucket) phases->spans = std::move(spans);
  }
  return one_bucket ? whole_s : exposed;
}

}  // namespace

std::vector<std::string> step_optimizer_names() { return optimizer_registry().names(); }

void check_step_optimizer(std::string_view optimizer) { stages_of(optimizer); }

std::vector<StageTiming> simulate_step(const StepConfig& config, std::vector<StagePhases>* phases) {
  config.workload.validate();
  config.cluster.validate();
  const int batch =
      config.batch_per_gpu > 0 ? config.batch_per_gpu : config.workload.default_batch_per_gpu;
  if (config.batch_per_gpu < 0) {
    throw InvalidArgument(fmt::format("batch_per_gpu = {}, expected >= 1", config.batch_per_gpu));
  }
  if (config.grad_accum < 1) {
    throw InvalidArgument(fmt::format("grad_accum = {}, expected >= 1", config.grad_accum));
  }
  if (config.buckets < 0)
    throw InvalidArgument(fmt::format("buckets = {}, expected >= 0", config.buckets));
  const net::WorkloadSpec& w = config.workload;
  const double modeled = static_cast<double>(w.parameters);
  const net::ComputeTimes compute =
      net::compute_times(w, config.cluster.gpu, batch, config.grad_accum);
  std::vector<StageTiming> rows;
  for (const Stage& stage : stages_of(config.optimizer)) {
    StageTiming t;
    t.stage = stage.name;
    t.forward_s = compute.forward_s;
    t.backward_compute_s = compute.backward_s;
    t.compress_s = compute.compress_s * compression_scale(stage, config.cluster);
    t.step_s = compute.step_s * stage.step_bytes_ratio;
    t.compute_utilization = compute.utilization;
    StagePhases stage_phases;
    const bool overlap = overlaps_backward(config.overlap, stage.overlap);
    const CommMeasure whole =
        simulate_collective(config, stage, modeled, phases ? &stage_phases.spans : nullptr);
    t.bytes_per_gpu = whole.bytes_per_gpu;
    t.inter_node_bytes = whole.inter_node_bytes;
    t.comm_s = whole.seconds;
    if (overlap) {
      t.comm_s = bucketed_comm_s(config, stage, whole.seconds, t.backward_compute_s,
                                 phases ? &stage_phases : nullptr);
    }
    t.step_time_s = t.forward_s + t.backward_compute_s + t.comm_s + t.compress_s + t.step_s;
    t.throughput_samples_s =
        static_cast<double>(config.cluster.gpus()) * batch * config.grad_accum / t.step_time_s;
    rows.push_back(t);
    if (phases != nullptr) phases->push_back(std::move(stage_phases));
  }
  return rows;
}

}  // namespace compopt::sim
