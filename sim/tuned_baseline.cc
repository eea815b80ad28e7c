#include "sim/tuned_baseline.h"

#include <algorithm>
#include <vector>

#include "sim/allreduce_algorithm.h"
#include "sim/step_phases.h"

namespace compopt::sim {

namespace {

// A run must beat the best so far by more than the simulator's rounding to replace it.
constexpr double kRounding = 1e-9;

// The runnable algorithm a charged algorithm text names: "ring", or "ring + forward parameter
// all-gather ..." under ZeRO-3 (implementation_profile.h), is ring; empty for none.
std::string allreduce_of(const StepConfig& config, const std::string& charged) {
  for (const AllreduceAlgorithm* a : runnable_allreduce_algorithms(config.cluster)) {
    if (charged == a->name || charged.starts_with(std::string(a->name) + " "))
      return std::string(a->name);
  }
  return {};
}

BaselineRun run(const StepConfig& config, bool* overlapped = nullptr) {
  std::vector<StagePhases> phases;
  const StageTiming steady = simulate_step(config, overlapped ? &phases : nullptr).back();
  if (overlapped != nullptr) *overlapped = !phases.empty() && phases.back().buckets > 0;
  return {.algorithm = steady.algorithm,
          .allreduce = allreduce_of(config, steady.algorithm),
          .buckets = config.buckets,
          .buckets_used = steady.buckets,
          .step_time_s = steady.step_time_s};
}

// kTunedBucketCounts but `given` (already run), and `given` where it is not among them.
std::vector<int> other_bucket_counts(int given) {
  std::vector<int> counts;
  for (const int b : kTunedBucketCounts)
    if (b != given) counts.push_back(b);
  return counts;
}

StepConfig with(const StepConfig& baseline, std::string_view algorithm, int buckets) {
  StepConfig config = baseline;
  config.cluster.allreduce_algorithm = std::string(algorithm);
  config.buckets = buckets;
  return config;
}

}  // namespace

double TunedBaseline::default_slowdown() const {
  if (other_algorithm.algorithm.empty() || other_algorithm.step_time_s <= 0) return 1.0;
  return nccl_default.step_time_s / other_algorithm.step_time_s;
}

TunedBaseline tune_baseline(const StepConfig& baseline) {
  TunedBaseline out;
  bool overlapped = false;
  out.nccl_default = run(baseline, &overlapped);
  out.tuned = out.nccl_default;
  // The other algorithms at the default's buckets (the default's own algorithm is that run).
  for (const AllreduceAlgorithm* a : runnable_allreduce_algorithms(baseline.cluster)) {
    if (a->name == out.nccl_default.allreduce) continue;
    const BaselineRun r = run(with(baseline, a->name, baseline.buckets));
    if (out.other_algorithm.algorithm.empty() || r.step_time_s < out.other_algorithm.step_time_s)
      out.other_algorithm = r;
    if (r.step_time_s < out.tuned.step_time_s * (1 - kRounding)) out.tuned = r;
  }
  if (!overlapped) return out;  // the bucket count only matters where backward overlaps
  const BaselineRun best_algorithm = out.tuned;
  for (const int buckets : other_bucket_counts(baseline.buckets)) {
    const BaselineRun r = run(with(baseline, best_algorithm.allreduce, buckets));
    if (r.step_time_s < out.tuned.step_time_s * (1 - kRounding)) out.tuned = r;
  }
  return out;
}

}  // namespace compopt::sim
