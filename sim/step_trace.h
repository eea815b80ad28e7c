#pragma once
// A Chrome / Perfetto trace of one simulated step per optimizer stage, in the
// JSON object form of the Trace Event Format: {"traceEvents": [...],
// "displayTimeUnit": "ms", "otherData": {...}}, times in microseconds of
// simulated time. Built from simulate_step's rows and phases (step_simulator.h);
// docs/simulator.md "Traces" describes it for users.
//
// Stages lie one after another on one timeline (a onebit-adam profile: the warmup
// step, then the compression step). Each node is a process (pid = node); each
// traced rank r has two threads in it:
//   tid 2r     "rank r compute": "<stage> step" holding forward, backward, exposed
//              allreduce (the part not hidden behind backward), compression and
//              optimizer step, which add up to the step time;
//   tid 2r + 1 "rank r comm": "allreduce" (the slowest rank's duration) holding
//              this rank's phases of the collective; with overlap one span per
//              bucket as the buckets follow backward, each holding its phases.
// Up to kMaxTracedRanks GPUs every rank is traced; beyond, the first GPU of each
// node, and of only the first and last kMaxTracedRanks / 2 nodes when there are
// more nodes than that. More than kMaxDrawnBuckets buckets are drawn as that many
// groups of consecutive buckets, without phases.

#include <nlohmann/json.hpp>
#include <vector>

#include "sim/step_phases.h"
#include "sim/step_simulator.h"

namespace compopt::sim {

inline constexpr int kMaxTracedRanks = 64;
inline constexpr int kMaxDrawnBuckets = 32;

// The ranks the trace draws, ascending.
std::vector<int> traced_ranks(int nodes, int gpus_per_node);

// Throws InvalidArgument unless `phases` has one entry per row of `timings`, with
// spans for every GPU of config.cluster.
nlohmann::json step_trace(const StepConfig& config, const std::vector<StageTiming>& timings,
                          const std::vector<StagePhases>& phases);

}  // namespace compopt::sim
