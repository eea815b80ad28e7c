#pragma once
// The uncompressed baseline as a researcher would run it (docs/simulator.md "Tuned
// baseline"): once as NCCL's default rule runs it (the config's allreduce_algorithm, "auto"
// unless forced, and its bucket setting), and tuned: the fastest step over every allreduce
// algorithm that runs on the cluster (ring, tree; NVLS on one NVSwitch node) and the bucket
// counts of kTunedBucketCounts. A compressed optimizer's speedup against the default alone can
// be NCCL's misjudgement rather than compression: on 32 nodes of one 50 us TCP NIC NCCL's
// tuning model, whose latencies are InfiniBand's, runs the ring where the tree is faster.

#include <array>
#include <string>
#include <vector>

#include "sim/step_simulator.h"

namespace compopt::sim {

// Bucket counts tried (StepConfig::buckets): 0 is PyTorch DDP's 25 MB buckets (or one bucket
// where that is faster, step_simulator.h), 1 the whole gradient at once, then powers of 4.
// Buckets matter only where the baseline's allreduce overlaps backward.
inline constexpr std::array<int, 5> kTunedBucketCounts = {0, 1, 4, 16, 64};

// One way to run the baseline and the step time of its steady stage (the last one).
struct BaselineRun {
  std::string algorithm;  // the allreduce algorithm charged (a bucket's with overlap)
  std::string allreduce;  // the runnable algorithm it names (ring, tree, nvls), to force it
  int buckets = 0;        // StepConfig::buckets
  int buckets_used = 0;   // the buckets the steady stage went out in (StageTiming::buckets)
  double step_time_s = 0;
};

struct TunedBaseline {
  BaselineRun nccl_default;  // `baseline` as given
  BaselineRun tuned;         // the fastest run; the default unless beaten beyond rounding
  // The fastest run of an algorithm other than the default's at the default's buckets (empty
  // algorithm where only one runs): what NCCL's choice is judged against.
  BaselineRun other_algorithm;
  // nccl_default / other_algorithm step time: > 1 when NCCL's choice is the slower one.
  double default_slowdown() const;
  // Whether NCCL's default is the slower algorithm beyond the 1% the outputs round to: what
  // `--tune-baseline` warns about and the nccl_default_slower column flags.
  bool default_is_slower() const { return default_slowdown() > kSlowerBeyond; }
  static constexpr double kSlowerBeyond = 1.01;
};

// Simulates `baseline` (an uncompressed optimizer's step config) as given, then every other
// runnable algorithm at its bucket count, then, where the baseline's allreduce overlaps
// backward, the other counts of kTunedBucketCounts with the fastest algorithm so far (a search
// one coordinate at a time: 2 + 4 simulations with ring and tree, not 10). Throws as
// simulate_step does.
TunedBaseline tune_baseline(const StepConfig& baseline);

}  // namespace compopt::sim
