#include "experiments/cli/profile_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <string_view>
#include <vector>

#include "sim/allreduce_algorithm.h"
#include "sim/framework_collectives.h"
#include "sim/implementation_profile.h"
#include "sim/model_error.h"
#include "sim/step_spread.h"
#include "sim/tuned_baseline.h"

namespace compopt::cli {

namespace {

std::vector<std::string_view> algorithm_names(const net::ClusterSpec& cluster) {
  std::vector<std::string_view> names;
  for (const sim::AllreduceAlgorithm* a : sim::runnable_allreduce_algorithms(cluster))
    names.push_back(a->name);
  return names;
}

}  // namespace

void print_breakdown_header() {
  fmt::print("\n{:<14} {:>10} {:>12} {:>12} {:>10} {:>10} {:>12} {:>8} {:>12} {:>7}  {}\n", "stage",
             "fwd ms", "allreduce ms", "bwd else ms", "compr ms", "step ms", "total ms", "AR %",
             "samples/s", "buckets", "algorithm");
}

void print_breakdown_row(const sim::StageTiming& t) {
  fmt::print(
      "{:<14} {:>10.2f} {:>12.2f} {:>12.2f} {:>10.2f} {:>10.2f} {:>12.2f} {:>7.1f}% {:>12.1f} "
      "{:>7}  {}\n",
      t.stage, 1e3 * t.forward_s, 1e3 * t.comm_s, 1e3 * t.backward_compute_s, 1e3 * t.compress_s,
      1e3 * t.step_s, 1e3 * t.step_time_s, t.allreduce_pct(), t.throughput_samples_s, t.buckets,
      t.algorithm);
}

void print_implementation(const sim::StepConfig& c) {
  const sim::ImplementationProfile& p = sim::implementation_profile(c.implementation);
  const net::WorkloadSpec w = sim::implemented_workload(c.workload, p, c.optimizer).workload;
  const sim::ChargedStepKernel kernel = sim::step_kernel(p, c.optimizer);
  fmt::print(
      "implementation: {} ({}; accumulation: {}; {} step {:.4g} B/param ({}); ZeRO stage {}; "
      "{} attention, activation checkpointing {})\n",
      p.name, p.issue_text, p.accumulation_text,
      c.workload.step_bytes_stated ? c.optimizer : kernel.family, w.step_bytes_per_param,
      c.workload.step_bytes_stated ? "the workload's" : kernel.kernel.text, p.zero_stage,
      sim::attention_kind_name(*w.attention), *w.activation_checkpointing ? "on" : "off");
  fmt::print("  compressed allreduce: {} ({}); sources: docs/implementations.md\n",
             p.compressed_collectives, sim::framework_collectives(p.compressed_collectives).text);
}

nlohmann::json buckets_used(const std::vector<sim::StageTiming>& timings) {
  nlohmann::json out = nlohmann::json::object();
  for (const sim::StageTiming& t : timings) out[t.stage] = t.buckets;
  return out;
}

nlohmann::json algorithms(const std::vector<sim::StageTiming>& timings) {
  nlohmann::json out = nlohmann::json::object();
  for (const sim::StageTiming& t : timings) out[t.stage] = t.algorithm;
  return out;
}

void print_bounds(const sim::StepConfig& config, const std::vector<sim::StageTiming>& timings,
                  const sim::ScenarioTotals& totals) {
  fmt::print(
      "\nlow..high: root-sum-square of the one-at-a-time deviations of the uncertain inputs "
      "and the model's own error (docs/whatif.md, \"The band\"):\n");
  for (const std::string& line : sim::input_range_lines(config)) fmt::print("  {}\n", line);
  fmt::print("  {}\n", sim::model_error().source);
  for (const sim::StageTiming& t : timings) {
    const sim::StageBounds& b = totals.bounds.at(t.stage);
    fmt::print("{:<14} total ms {:.2f}..{:.2f}, samples/s {:.1f}..{:.1f}\n", t.stage,
               1e3 * b.step_time_low_s, 1e3 * b.step_time_high_s, b.throughput_low_samples_s,
               b.throughput_high_samples_s);
  }
}

nlohmann::json band_json(const sim::StepConfig& config,
                         const std::vector<sim::StageTiming>& timings,
                         const sim::ScenarioTotals& totals) {
  nlohmann::json stages = nlohmann::json::object();
  for (const sim::StageTiming& t : timings) {
    const sim::StageBounds& b = totals.bounds.at(t.stage);
    stages[t.stage] = {{"step_time_low_s", b.step_time_low_s},
                       {"step_time_high_s", b.step_time_high_s}};
  }
  return {{"rule",
           "root-sum-square of the one-at-a-time deviations and the model-error term "
           "(docs/whatif.md, The band)"},
          {"inputs", sim::input_range_lines(config)},
          {"model_error_fraction", sim::model_error().fraction},
          {"model_error", sim::model_error().source},
          {"stages", stages}};
}

void print_baseline(const sim::StepConfig& config, const sim::StageTiming& steady,
                    const std::optional<ScenarioBaseline>& b) {
  if (!b) {
    fmt::print(
        "\nbaseline: NCCL's default algorithm and buckets; --tune-baseline also runs the tuned "
        "one and compares\n");
    return;
  }
  const sim::TunedBaseline& t = b->runs;
  std::vector<std::string> buckets;  // 0: the implementation's bucket size
  buckets.reserve(sim::kTunedBucketCounts.size());
  for (const int count : sim::kTunedBucketCounts)
    buckets.push_back(count == 0 ? "the implementation's" : std::to_string(count));
  fmt::print(
      "\nbaseline {}: NCCL default {} per step; tuned {} per step (searched {} at the default's "
      "buckets, then buckets {} with the faster where backward overlaps)\n",
      b->optimizer, describe_baseline_run(t.nccl_default), describe_baseline_run(t.tuned),
      fmt::join(algorithm_names(config.cluster), ", "), fmt::join(buckets, ", "));
  if (t.default_is_slower()) {
    fmt::print("warning: NCCL default ({}) is {:.2f}x slower than {} here\n",
               t.nccl_default.algorithm, t.default_slowdown(), t.other_algorithm.algorithm);
  }
  fmt::print(
      "speedup of {}: {:.2f}x against the NCCL-default baseline, {:.2f}x against the tuned\n",
      config.optimizer, t.nccl_default.step_time_s / steady.step_time_s,
      t.tuned.step_time_s / steady.step_time_s);
}

void print_training(const sim::ScenarioTotals& totals) {
  const sim::TrainingTime& t = totals.training;
  if (t.total_steps) {
    fmt::print("\ntime to train: {} steps ({} in the warmup stage): {:.4g} h ({:.4g}..{:.4g})\n",
               *t.total_steps, *t.warmup_steps, *t.time_to_train_h,
               *totals.training_low.time_to_train_h, *totals.training_high.time_to_train_h);
  }
  if (!t.phases.empty()) fmt::print("  in phases: {}\n", t.phases);
  if (t.steps_to_target == sim::kNotReached) {
    fmt::print("time to target: the metrics run never reached the target\n");
  } else if (t.time_to_target_h) {
    fmt::print("time to target: {} steps: {:.4g} h ({:.4g}..{:.4g})\n", t.steps_to_target,
               *t.time_to_target_h, *totals.training_low.time_to_target_h,
               *totals.training_high.time_to_target_h);
  }
}

void print_memory(const sim::StepConfig& c, const sim::ScenarioTotals& totals) {
  constexpr double kGb = 1e9;
  const sim::GpuMemory& m = totals.memory;
  const std::string of = totals.memory_phase.empty() ? fmt::format("batch {}", c.batch_per_gpu)
                                                     : "the run's peak: " + totals.memory_phase;
  fmt::print(
      "\nmemory per GPU: weights {:.3f} GB, gradients {:.3f} GB, optimizer {:.3f} GB, "
      "activations {:.3f} GB ({}): {:.3f} GB of the {}'s {:.3f} GB\n",
      m.weights_bytes / kGb, m.gradients_bytes / kGb, m.optimizer_bytes / kGb,
      m.activations_bytes / kGb, of, m.total_bytes() / kGb, c.cluster.gpu.name, m.gpu_bytes / kGb);
  if (!m.fits()) {
    fmt::print("warning: does not fit: {:.3f} GB needed per GPU > {:.3f} GB on the {}\n",
               m.total_bytes() / kGb, m.gpu_bytes / kGb, c.cluster.gpu.name);
  }
}

}  // namespace compopt::cli
