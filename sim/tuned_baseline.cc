#include "sim/tuned_baseline.h"

#include <algorithm>
#include <vector>

#include "sim/allreduce_algorithm.h"

namespace compopt::sim {

namespace {

BaselineRun run(const StepConfig& config) {
  const StageTiming steady = simulate_step(config).back();
  return {
      .algorithm = steady.algorithm, .buckets = config.buckets, .step_time_s = steady.step_time_s};
}

// kTunedBucketCounts, and the baseline's own count where it is not among them.
std::vector<int> bucket_counts(int given) {
  std::vector<int> counts(kTunedBucketCounts.begin(), kTunedBucketCounts.end());
  if (std::find(counts.begin(), counts.end(), given) == counts.end()) counts.push_back(given);
  return counts;
}

// A run must beat the best so far by more than the simulator's rounding to replace it.
constexpr double kRounding = 1e-9;

}  // namespace

double TunedBaseline::default_slowdown() const {
  if (other_algorithm.algorithm.empty() || other_algorithm.step_time_s <= 0) return 1.0;
  return nccl_default.step_time_s / other_algorithm.step_time_s;
}

TunedBaseline tune_baseline(const StepConfig& baseline) {
  TunedBaseline out;
  out.nccl_default = run(baseline);
  out.tuned = out.nccl_default;
  for (const AllreduceAlgorithm* a : runnable_allreduce_algorithms(baseline.cluster)) {
    StepConfig config = baseline;
    config.cluster.allreduce_algorithm = a->name;
    for (const int buckets : bucket_counts(baseline.buckets)) {
      config.buckets = buckets;
      const BaselineRun r = run(config);
      if (r.step_time_s < out.tuned.step_time_s * (1 - kRounding)) out.tuned = r;
      const bool other = r.algorithm != out.nccl_default.algorithm;
      if (other && buckets == baseline.buckets &&
          (out.other_algorithm.algorithm.empty() ||
           r.step_time_s < out.other_algorithm.step_time_s))
        out.other_algorithm = r;
    }
  }
  return out;
}

}  // namespace compopt::sim
