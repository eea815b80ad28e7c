// The trace of a simulated step (sim/step_trace.h): valid Chrome trace-event JSON,
// spans that nest per track, compute spans equal to the step's rows, collective
// phases that add up to the allreduce time, overlap buckets as the DDP model
// places them, the cap on traced ranks and buckets, and bad input.

#include "sim/step_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/util/error.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

using nlohmann::json;

constexpr double kNsInUs = 1e-3;  // the trace rounds times to whole nanoseconds

struct Traced {
  StepConfig config = {};
  std::vector<StageTiming> rows = {};
  std::vector<StagePhases> phases = {};
  json trace = {};
};

Traced trace_of(const Scenario& s, bool full_collectives = false) {
  Traced t{.config = resolve_scenario(s)};
  t.config.full_collectives = full_collectives;
  t.rows = simulate_step(t.config, &t.phases);
  t.trace = step_trace(t.config, t.rows, t.phases);
  return t;
}

// "X" events of one (pid, tid), by start, longer (enclosing) spans first.
std::map<std::pair<int, int>, std::vector<json>> spans_by_track(const json& trace) {
  std::map<std::pair<int, int>, std::vector<json>> out;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "X") out[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(e);
  for (auto& [track, spans] : out) {
    std::sort(spans.begin(), spans.end(), [](const json& a, const json& b) {
      return a["ts"] != b["ts"] ? a["ts"] < b["ts"] : a["dur"] > b["dur"];
    });
  }
  return out;
}

double end_of(const json& e) { return e["ts"].get<double>() + e["dur"].get<double>(); }

// The named spans of a track, in time order.
std::vector<json> named(const std::vector<json>& spans, const std::string& name) {
  std::vector<json> out;
  for (const json& e : spans)
    if (e["name"] == name) out.push_back(e);
  return out;
}

// Sum of the durations of the spans one level below the holders named `holder`.
double phase_sum(const std::vector<json>& spans) {
  double sum = 0;
  for (const json& e : spans)
    if (e["cat"] == "comm phase" && e["args"]["level"] == 1) sum += e["dur"].get<double>();
  return sum;
}

void expect_trace_event_format(const json& trace) {
  ASSERT_TRUE(trace.contains("traceEvents"));
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  for (const json& e : trace["traceEvents"]) {
    for (const char* key : {"name", "ph", "ts", "pid", "tid"}) ASSERT_TRUE(e.contains(key)) << e;
    ASSERT_TRUE(e["ph"] == "X" || e["ph"] == "M") << e;
    if (e["ph"] == "X") {
      ASSERT_TRUE(e["dur"].is_number()) << e;
      EXPECT_GE(e["dur"].get<double>(), 0.0) << e;
      EXPECT_GE(e["ts"].get<double>(), 0.0) << e;
    }
  }
  // Spans that start together come holder first in the file (viewers nest them in file order).
  std::map<std::tuple<int, int, double>, double> last_dur;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const auto key =
        std::make_tuple(e["pid"].get<int>(), e["tid"].get<int>(), e["ts"].get<double>());
    const auto [it, fresh] = last_dur.emplace(key, e["dur"].get<double>());
    if (!fresh) {
      EXPECT_LE(e["dur"].get<double>(), std::exchange(it->second, e["dur"].get<double>())) << e;
    }
  }
  // Spans of one track either nest or follow each other.
  for (const auto& [track, spans] : spans_by_track(trace)) {
    std::vector<double> open_ends;
    for (const json& e : spans) {
      while (!open_ends.empty() && open_ends.back() <= e["ts"].get<double>() + kNsInUs / 2)
        open_ends.pop_back();
      if (!open_ends.empty()) {
        EXPECT_LE(end_of(e), open_ends.back() + kNsInUs / 2) << e;
      }
      open_ends.push_back(end_of(e));
    }
  }
}

TEST(StepTrace, OnebitAdamStepIsValidTraceEventJsonMatchingTheRows) {
  const Traced t = trace_of({.optimizer = "onebit-adam", .gpus = 8, .overlap = OverlapMode::kOff});
  expect_trace_event_format(t.trace);
  ASSERT_EQ(t.rows.size(), 2u);  // warmup, compression
  // The trace names the implementation profile and what each stage was charged.
  EXPECT_EQ(t.trace["otherData"]["implementation"], "ddp");
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const json& charged = t.trace["otherData"]["charged"].at(i);
    EXPECT_EQ(charged["stage"], t.rows[i].stage);
    EXPECT_EQ(charged["buckets"], 1);  // overlap off: the whole vector after backward
    EXPECT_EQ(charged["algorithm"], t.rows[i].algorithm);
    EXPECT_DOUBLE_EQ(charged["compute_utilization"].get<double>(), t.rows[i].compute_utilization);
  }
  const int per_node = t.config.cluster.gpus_per_node;
  const auto tracks = spans_by_track(t.trace);
  EXPECT_EQ(tracks.size(), 2u * 8);  // compute and comm of every rank
  for (int r = 0; r < 8; ++r) {
    const auto& compute = tracks.at({r / per_node, 2 * r});
    const auto& comm = tracks.at({r / per_node, 2 * r + 1});
    const auto steps = named(compute, t.rows[0].stage + " step");
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_DOUBLE_EQ(steps[0]["ts"].get<double>(), 0.0);
    double start = 0;
    for (size_t i = 0; i < t.rows.size(); ++i) {
      const StageTiming& row = t.rows[i];
      const json step = named(compute, row.stage + " step").at(0);
      // Stages follow one another on the timeline.
      EXPECT_NEAR(step["ts"].get<double>(), start, kNsInUs);
      EXPECT_NEAR(step["dur"].get<double>(), 1e6 * row.step_time_s, kNsInUs);
      start = end_of(step);
      EXPECT_NEAR(named(compute, "forward").at(i)["dur"].get<double>(), 1e6 * row.forward_s,
                  kNsInUs);
      EXPECT_NEAR(named(compute, "backward").at(i)["dur"].get<double>(),
                  1e6 * row.backward_compute_s, kNsInUs);
      EXPECT_NEAR(named(compute, "optimizer step").at(i)["dur"].get<double>(), 1e6 * row.step_s,
                  kNsInUs);
      EXPECT_NEAR(named(comm, "allreduce").at(i)["dur"].get<double>(), 1e6 * row.comm_s, kNsInUs);
    }
    // Only the compressed stage pays compression.
    ASSERT_EQ(named(compute, "compression").size(), 1u);
    EXPECT_NEAR(named(compute, "compression")[0]["dur"].get<double>(), 1e6 * t.rows[1].compress_s,
                kNsInUs);
    // Timed by rounds, every rank's phases fill the slowest rank's allreduce.
    EXPECT_NEAR(phase_sum(comm), 1e6 * (t.rows[0].comm_s + t.rows[1].comm_s), 8 * kNsInUs);
    EXPECT_EQ(named(comm, "reduce-scatter").size(), 1u);
    EXPECT_EQ(named(comm, "all-gather").size(), 2u);  // ring's and compressed allreduce's
    EXPECT_EQ(named(comm, "all-to-all").size(), 1u);
    EXPECT_EQ(named(comm, "all-gather scales").size(), 1u);
  }
}

TEST(StepTrace, MetadataNamesANodeProcessAndTwoThreadsPerRank) {
  const Traced t = trace_of({.gpus = 8, .overlap = OverlapMode::kOff});
  std::set<int> processes;
  std::map<std::pair<int, int>, std::string> threads;
  for (const json& e : t.trace["traceEvents"]) {
    if (e["name"] == "process_name") processes.insert(e["pid"].get<int>());
    if (e["name"] == "thread_name")
      threads[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
  }
  EXPECT_EQ(processes, (std::set<int>{0, 1}));  // 8 GPUs on nodes of 4
  EXPECT_EQ(threads.size(), 16u);
  EXPECT_EQ(threads.at({1, 10}), "rank 5 compute");
  EXPECT_EQ(threads.at({1, 11}), "rank 5 comm");
  EXPECT_EQ(t.trace["otherData"]["traced_ranks"], 8);
}

TEST(StepTrace, RecordingPhasesLeavesTheTimingsAsTheyAre) {
  for (const char* optimizer : {"adam", "onebit-adam", "birder-hierarchical"}) {
    const StepConfig config = resolve_scenario({.optimizer = optimizer, .gpus = 8});
    std::vector<StagePhases> phases;
    const auto plain = simulate_step(config), traced = simulate_step(config, &phases);
    ASSERT_EQ(plain.size(), traced.size());
    for (size_t i = 0; i < plain.size(); ++i) {
      // Two simulations of one scenario agree to rounding only (SimGrid's clock).
      EXPECT_NEAR(plain[i].comm_s, traced[i].comm_s, 1e-12 * plain[i].comm_s) << optimizer;
      EXPECT_EQ(plain[i].bytes_per_gpu, traced[i].bytes_per_gpu) << optimizer;
      EXPECT_NEAR(plain[i].step_time_s, traced[i].step_time_s, 1e-12 * plain[i].step_time_s)
          << optimizer;
    }
  }
}

// Run in full, ranks finish at different times: each rank's phases are contiguous
// from the start of its collective, and the slowest rank's add up to comm_s.
void expect_full_phases_fill_the_collective(const Traced& t) {
  ASSERT_EQ(t.phases.size(), t.rows.size());
  for (size_t i = 0; i < t.rows.size(); ++i) {
    double slowest = 0;
    for (const std::vector<PhaseSpan>& spans : t.phases[i].spans) {
      double sum = 0, cursor = 0;
      for (const PhaseSpan& p : spans) {
        if (p.depth != 0) continue;
        EXPECT_NEAR(p.start_s, cursor, 1e-12);
        EXPECT_GE(p.end_s, p.start_s);
        sum += p.end_s - p.start_s;
        cursor = p.end_s;
      }
      slowest = std::max(slowest, sum);
    }
    EXPECT_NEAR(slowest, t.rows[i].comm_s, 1e-9 * t.rows[i].comm_s) << t.rows[i].stage;
  }
}

TEST(StepTrace, FullCollectivesGiveEachRankItsOwnPhases) {
  const Traced t = trace_of({.cluster = "infiniband-v100-8",
                             .optimizer = "onebit-adam",
                             .gpus = 16,
                             .topology = "fat-tree",
                             .overlap = OverlapMode::kOff},
                            true);
  expect_trace_event_format(t.trace);
  expect_full_phases_fill_the_collective(t);
}

TEST(StepTrace, HierarchicalPhasesNestTheInterNodeCompressedAllreduce) {
  const Traced t = trace_of({.workload = "resnet50-imagenet",
                             .cluster = "ethernet-a100-8",
                             .optimizer = "birder-hierarchical",
                             .gpus = 16});
  expect_trace_event_format(t.trace);
  expect_full_phases_fill_the_collective(t);
  std::vector<std::pair<std::string, int>> names;
  for (const PhaseSpan& p : t.phases[0].spans[5]) names.emplace_back(p.name, p.depth);
  // A parent is recorded after its children.
  EXPECT_EQ(names, (std::vector<std::pair<std::string, int>>{{"intra-node reduce-scatter", 0},
                                                             {"all-to-all", 1},
                                                             {"all-gather", 1},
                                                             {"inter-node compressed allreduce", 0},
                                                             {"intra-node all-gather", 0}}));
}

TEST(StepTrace, OverlapBucketsFollowBackwardAndExposeCommS) {
  const Traced t =
      trace_of({.optimizer = "onebit-adam", .gpus = 8, .overlap = OverlapMode::kOn, .buckets = 4});
  expect_trace_event_format(t.trace);
  const auto tracks = spans_by_track(t.trace);
  const auto& compute = tracks.at({0, 0});
  const auto& comm = tracks.at({0, 1});
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const StageTiming& row = t.rows[i];
    ASSERT_EQ(t.phases[i].buckets, 4);
    const json backward = named(compute, "backward").at(i);
    const double beta = backward["dur"].get<double>() / 4;
    double previous_end = backward["ts"].get<double>();
    for (int k = 0; k < 4; ++k) {
      const json bucket = named(comm, "bucket " + std::to_string(k)).at(i);
      // Starts when its gradients are ready and the bucket before it is done.
      const double ready = backward["ts"].get<double>() + (k + 1) * beta;
      EXPECT_NEAR(bucket["ts"].get<double>(), std::max(ready, previous_end), 2 * kNsInUs);
      EXPECT_NEAR(bucket["dur"].get<double>(), 1e6 * t.phases[i].bucket_s, kNsInUs);
      previous_end = end_of(bucket);
    }
    // What the last bucket adds after backward is the exposed allreduce of the row.
    EXPECT_NEAR(std::max(previous_end, end_of(backward)) - end_of(backward), 1e6 * row.comm_s,
                4 * kNsInUs);
    EXPECT_NEAR(named(compute, "exposed allreduce").at(i)["dur"].get<double>(), 1e6 * row.comm_s,
                kNsInUs);
  }
  EXPECT_NEAR(phase_sum(comm), 4e6 * (t.phases[0].bucket_s + t.phases[1].bucket_s), 16 * kNsInUs);
}

TEST(StepTrace, ManyBucketsAreDrawnInGroupsWithoutPhases) {
  const Traced t = trace_of({.gpus = 8, .overlap = OverlapMode::kOn, .buckets = 100});
  expect_trace_event_format(t.trace);
  const auto tracks = spans_by_track(t.trace);
  const auto& comm = tracks.at({0, 1});
  EXPECT_EQ(comm.size(), static_cast<size_t>(kMaxDrawnBuckets));
  int buckets = 0;
  for (const json& e : comm) buckets += e["args"]["buckets"].get<int>();
  EXPECT_EQ(buckets, 100);
  EXPECT_EQ(comm.front()["name"], "buckets 0-2");
  EXPECT_EQ(comm.back()["name"], "buckets 96-99");
}

TEST(StepTrace, LargeClustersAreTracedByNodeThenByTheFirstAndLastNodes) {
  EXPECT_EQ(traced_ranks(16, 4).size(), 64u);  // every rank up to 64
  EXPECT_EQ(traced_ranks(16, 8),
            (std::vector<int>{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120}));
  const std::vector<int> ends = traced_ranks(100, 8);
  ASSERT_EQ(ends.size(), 64u);
  EXPECT_EQ(ends[31], 31 * 8);
  EXPECT_EQ(ends[32], 68 * 8);
  EXPECT_EQ(ends.back(), 99 * 8);
}

TEST(StepTrace, PhasesThatDoNotMatchTheRowsAreRefused) {
  const StepConfig config = resolve_scenario({.gpus = 8});
  std::vector<StagePhases> phases;
  const auto rows = simulate_step(config, &phases);
  EXPECT_THAT([&] { (void)step_trace(config, rows, {}); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  ::testing::HasSubstr("1 stage rows with 0 phase records")));
  phases[0].spans.pop_back();
  EXPECT_THROW((void)step_trace(config, rows, phases), InvalidArgument);
}

}  // namespace
}  // namespace compopt::sim
