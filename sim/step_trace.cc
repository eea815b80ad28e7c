#include "sim/step_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "core/util/error.h"
#include "net_models/compute_model.h"

namespace compopt::sim {

namespace {

using nlohmann::json;

struct Track {
  int pid = 0, tid = 0;
};

// Whole nanoseconds, so that spans computed from the same boundaries nest exactly.
int64_t ns(double seconds) { return std::llround(seconds * 1e9); }

// An "X" (complete) event from `start_s` to `end_s`.
json span(const std::string& name, const char* cat, double start_s, double end_s, Track track,
          json args = json::object()) {
  const int64_t start = ns(start_s), end = std::max(start, ns(end_s));
  return {{"name", name},
          {"cat", cat},
          {"ph", "X"},
          {"ts", static_cast<double>(start) / 1e3},
          {"dur", static_cast<double>(end - start) / 1e3},
          {"pid", track.pid},
          {"tid", track.tid},
          {"args", std::move(args)}};
}

json metadata(const char* name, Track track, json args) {
  return {{"name", name},     {"ph", "M"},        {"ts", 0},
          {"pid", track.pid}, {"tid", track.tid}, {"args", std::move(args)}};
}

// The rank's phases of one collective that starts at `base_s`, clipped to `end_s`
// (the slowest rank's end), one level below the span that holds them. Sorted by
// start, holders first: viewers nest spans of equal start in file order.
void add_phases(json& events, std::vector<PhaseSpan> spans, double base_s, double end_s,
                Track track) {
  std::stable_sort(spans.begin(), spans.end(), [](const PhaseSpan& a, const PhaseSpan& b) {
    return a.start_s != b.start_s ? a.start_s < b.start_s : a.depth < b.depth;
  });
  for (const PhaseSpan& p : spans) {
    events.push_back(span(p.name, "comm phase", std::min(base_s + p.start_s, end_s),
                          std::min(base_s + p.end_s, end_s), track, {{"level", p.depth + 1}}));
  }
}

// [start, end) of every bucket's collective: bucket k's gradients are ready at
// backward_start + (k + 1) beta / B, and it starts once the bucket before it is done.
std::vector<std::pair<double, double>> bucket_intervals(double backward_start_s, double backward_s,
                                                        const StagePhases& phases) {
  std::vector<std::pair<double, double>> out;
  const double beta = backward_s / phases.buckets;
  double previous_end = backward_start_s;
  for (int k = 0; k < phases.buckets; ++k) {
    const double start = std::max(backward_start_s + (k + 1) * beta, previous_end);
    previous_end = start + phases.bucket_s;
    out.emplace_back(start, previous_end);
  }
  return out;
}

void add_buckets(json& events, const StagePhases& phases, const std::vector<PhaseSpan>& spans,
                 double backward_start_s, double backward_s, Track track) {
  const auto intervals = bucket_intervals(backward_start_s, backward_s, phases);
  const int buckets = phases.buckets;
  if (buckets <= kMaxDrawnBuckets) {
    for (int k = 0; k < buckets; ++k) {
      const auto [start, end] = intervals[static_cast<size_t>(k)];
      events.push_back(span(fmt::format("bucket {}", k), "comm", start, end, track));
      add_phases(events, spans, start, end, track);
    }
    return;
  }
  for (int g = 0; g < kMaxDrawnBuckets; ++g) {
    const int first = g * buckets / kMaxDrawnBuckets;
    const int last = (g + 1) * buckets / kMaxDrawnBuckets - 1;
    events.push_back(span(fmt::format("buckets {}-{}", first, last), "comm",
                          intervals[static_cast<size_t>(first)].first,
                          intervals[static_cast<size_t>(last)].second, track,
                          {{"buckets", last - first + 1}}));
  }
}

// One stage's step on one rank's two tracks, from `t0_s`; returns its end.
double add_stage(json& events, const StageTiming& t, const StagePhases& phases, int rank,
                 Track compute, double t0_s) {
  const Track comm{compute.pid, compute.tid + 1};
  const double backward = t0_s + t.forward_s, exposed = backward + t.backward_compute_s;
  const double compression = exposed + t.comm_s, step = compression + t.compress_s;
  const double end = step + t.step_s;
  events.push_back(span(t.stage + " step", "step", t0_s, end, compute,
                        {{"stage", t.stage},
                         {"algorithm", t.algorithm},
                         {"step_time_ms", 1e3 * t.step_time_s},
                         {"samples_per_s", t.throughput_samples_s}}));
  events.push_back(span("forward", "compute", t0_s, backward, compute));
  events.push_back(span("backward", "compute", backward, exposed, compute));
  events.push_back(span("exposed allreduce", "comm", exposed, compression, compute));
  if (t.compress_s > 0)
    events.push_back(span("compression", "compression", compression, step, compute));
  events.push_back(span("optimizer step", "compute", step, end, compute));
  const auto& spans = phases.spans[static_cast<size_t>(rank)];
  if (phases.buckets > 0) {
    add_buckets(events, phases, spans, backward, t.backward_compute_s, comm);
    return end;
  }
  events.push_back(span("allreduce", "comm", exposed, compression, comm,
                        {{"bytes_per_gpu", t.bytes_per_gpu},
                         {"inter_node_bytes", t.inter_node_bytes},
                         {"algorithm", t.algorithm}}));
  add_phases(events, spans, exposed, compression, comm);
  return end;
}

void add_track_names(json& events, const std::vector<int>& ranks, int gpus_per_node) {
  int named_node = -1;
  for (int r : ranks) {
    const int node = r / gpus_per_node;
    if (node != named_node) {
      events.push_back(
          metadata("process_name", {node, 0}, {{"name", fmt::format("node {}", node)}}));
      events.push_back(metadata("process_sort_index", {node, 0}, {{"sort_index", node}}));
      named_node = node;
    }
    for (int comm = 0; comm < 2; ++comm) {
      const Track track{node, 2 * r + comm};
      events.push_back(
          metadata("thread_name", track,
                   {{"name", fmt::format("rank {} {}", r, comm == 0 ? "compute" : "comm")}}));
      events.push_back(metadata("thread_sort_index", track, {{"sort_index", track.tid}}));
    }
  }
}

void check_phases(const StepConfig& config, const std::vector<StageTiming>& timings,
                  const std::vector<StagePhases>& phases) {
  bool complete = phases.size() == timings.size();
  for (const StagePhases& p : phases)
    complete = complete && p.spans.size() == static_cast<size_t>(config.cluster.gpus());
  if (!complete) {
    throw InvalidArgument(fmt::format(
        "step trace: {} stage rows with {} phase records, expected one per row with the "
        "phases of all {} GPUs",
        timings.size(), phases.size(), config.cluster.gpus()));
  }
}

}  // namespace

std::vector<int> traced_ranks(int nodes, int gpus_per_node) {
  std::vector<int> out;
  if (nodes * gpus_per_node <= kMaxTracedRanks) {
    for (int r = 0; r < nodes * gpus_per_node; ++r) out.push_back(r);
    return out;
  }
  constexpr int kEnds = kMaxTracedRanks / 2;
  for (int node = 0; node < nodes; ++node) {
    if (nodes <= kMaxTracedRanks || node < kEnds || node >= nodes - kEnds)
      out.push_back(node * gpus_per_node);
  }
  return out;
}

json step_trace(const StepConfig& config, const std::vector<StageTiming>& timings,
                const std::vector<StagePhases>& phases) {
  check_phases(config, timings, phases);
  const net::ClusterSpec& cluster = config.cluster;
  const std::vector<int> ranks = traced_ranks(cluster.nodes, cluster.gpus_per_node);
  json events = json::array();
  add_track_names(events, ranks, cluster.gpus_per_node);
  json stages = json::array();
  for (int r : ranks) {
    double t0 = 0;
    for (size_t i = 0; i < timings.size(); ++i)
      t0 = add_stage(events, timings[i], phases[i], r, {r / cluster.gpus_per_node, 2 * r}, t0);
  }
  json charged = json::array();  // per stage: what its communication and compute were charged
  const std::string utilization_source = net::utilization_source_kind(
      net::compute_times(config.workload, cluster.gpu, config.batch_per_gpu, config.grad_accum));
  for (const StageTiming& t : timings) {
    stages.push_back(t.stage);
    charged.push_back({{"stage", t.stage},
                       {"buckets", t.buckets},
                       {"algorithm", t.algorithm},
                       {"compute_utilization", t.compute_utilization},
                       {"compute_utilization_source", utilization_source}});
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"workload", config.workload.name},
            {"cluster", cluster.name},
            {"nodes", cluster.nodes},
            {"gpus_per_node", cluster.gpus_per_node},
            {"optimizer", config.optimizer},
            {"overlap", overlap_mode_name(config.overlap)},
            {"implementation", config.implementation},
            {"stages", std::move(stages)},
            {"charged", std::move(charged)},
            {"traced_ranks", ranks.size()}}}};
}

}  // namespace compopt::sim
