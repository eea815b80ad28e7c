#include "sim/time_to_train.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/optim/optimizer_registry.h"
#include "core/util/csv_table.h"
#include "core/util/error.h"

namespace compopt::sim {
namespace {

constexpr double kSecondsPerHour = 3600;

// Metric name suffixes and whether a larger value is better.
const std::vector<std::pair<std::string, bool>> kMetricDirections = {{"accuracy", true},
                                                                     {"loss", false}};

bool has_warmup_stage(const std::string& optimizer) {
  const auto& stages = optimizer_registry().get(optimizer).stages;
  return stages.size() > 1 && stages.front().name == stage_name(Stage::kWarmup);
}

// Warmup steps of a run of `steps` steps (0 for optimizers without a warmup stage); the
// measured run's fraction when the keys give none.
int64_t warmup_of(const TrainingSpec& spec, const std::string& optimizer, int64_t steps) {
  if (!has_warmup_stage(optimizer)) return 0;
  if (spec.warmup_steps) return std::min(*spec.warmup_steps, steps);
  const double run_steps = static_cast<double>(steps);
  if (spec.warmup_fraction) return std::llround(*spec.warmup_fraction * run_steps);
  const RunWarmup& run = spec.run_warmups.at(optimizer);
  const double fraction = static_cast<double>(run.warmup_steps) / static_cast<double>(run.steps);
  return std::llround(fraction * run_steps);
}

// Warmup steps on the way to the target: the keys' rule, else the measured run's own steps.
int64_t warmup_to_target(const TrainingSpec& spec, const std::string& optimizer,
                         std::optional<int64_t> total_steps, int64_t steps) {
  const bool keys = spec.warmup_steps || spec.warmup_fraction;
  const auto run = spec.run_warmups.find(optimizer);
  if (!keys && run != spec.run_warmups.end() && has_warmup_stage(optimizer))
    return std::min(steps, run->second.warmup_steps);
  return std::min(steps, warmup_of(spec, optimizer, total_steps ? *total_steps : steps));
}

// Hours of the run's first `steps` steps, of which the first `warmup` run at the warmup stage's
// time: phase i runs lengths[i] steps at its stage times, the last one any steps beyond.
double hours(const std::vector<PhaseTimings>& phases, const std::vector<int64_t>& lengths,
             int64_t steps, int64_t warmup) {
  double seconds = 0;
  int64_t start = 0;  // of phase i
  for (size_t i = 0; i < phases.size() && start < steps; ++i) {
    const int64_t end = i + 1 == phases.size() ? steps : std::min(steps, start + lengths[i]);
    const int64_t warm = std::clamp<int64_t>(warmup - start, 0, end - start);
    const std::vector<StageTiming>& t = phases[i].timings;
    // Single-stage optimizers have no warmup: front() is back(), weighted 0.
    seconds += static_cast<double>(warm) * t.front().step_time_s +
               static_cast<double>(end - start - warm) * t.back().step_time_s;
    start = end;
  }
  return seconds / kSecondsPerHour;
}

// "bert-large-seq128:0.9 (90000 steps at batch 16x1) + ...": what each phase ran.
std::string phases_label(const std::vector<PhaseTimings>& phases,
                         const std::vector<int64_t>& lengths, int64_t total_steps) {
  std::string out;
  for (size_t i = 0; i < phases.size(); ++i) {
    const StepConfig& c = phases[i].config;
    out += fmt::format("{}{}:{:.6g} ({} steps at batch {}x{})", out.empty() ? "" : " + ",
                       c.workload.name,
                       static_cast<double>(lengths[i]) / static_cast<double>(total_steps),
                       lengths[i], c.batch_per_gpu, c.grad_accum);
  }
  return out;
}

}  // namespace

bool higher_is_better(std::string_view metric) {
  for (const auto& [suffix, higher] : kMetricDirections) {
    if (metric.ends_with(suffix)) return higher;
  }
  throw InvalidArgument(fmt::format(
      "training.metric = '{}', expected a metrics.csv column ending in accuracy (reached at >= "
      "target) or loss (reached at <= target), e.g. test_accuracy or train_loss",
      metric));
}

void check_training(const TrainingSpec& spec, const std::string& optimizer) {
  if (spec.total_steps > 0 && spec.total_samples > 0) {
    throw InvalidArgument(
        "training.total_steps and training.total_samples are both given, "
        "expected one of them");
  }
  if (spec.warmup_steps && spec.warmup_fraction) {
    throw InvalidArgument(
        "training.warmup_steps and training.warmup_fraction are both given, "
        "expected one of them");
  }
  if (spec.warmup_steps && spec.total_steps > 0 && *spec.warmup_steps > spec.total_steps) {
    throw InvalidArgument(
        fmt::format("training.warmup_steps = {} exceeds training.total_steps = "
                    "{}, expected 0..{}",
                    *spec.warmup_steps, spec.total_steps, spec.total_steps));
  }
  if ((spec.target || !spec.steps_to_target.empty()) && spec.metric.empty()) {
    throw InvalidArgument(
        "training.metric is missing: a target needs the metric it is on, "
        "e.g. metric = \"test_accuracy\"");
  }
  if (!spec.metric.empty()) higher_is_better(spec.metric);
  if (!spec.baseline.empty()) check_step_optimizer(spec.baseline);
  check_phases(spec.phases, spec.total_steps, spec.total_samples);
  const bool counts =
      spec.total_steps > 0 || spec.total_samples > 0 || spec.steps_to_target.count(optimizer) > 0;
  const bool warmup =
      spec.warmup_steps || spec.warmup_fraction || spec.run_warmups.count(optimizer) > 0;
  if (counts && has_warmup_stage(optimizer) && !warmup) {
    throw InvalidArgument(fmt::format(
        "optimizer {} starts with a warmup stage: give training.warmup_steps or "
        "training.warmup_fraction, or its run in training.metrics (its freeze step has no "
        "fixed default)",
        optimizer));
  }
}

int64_t global_batch(const StepConfig& c) {
  return static_cast<int64_t>(c.cluster.gpus()) * c.batch_per_gpu * c.grad_accum;
}

TrainingTime time_to_train(const TrainingSpec& spec, const StepConfig& config,
                           const std::vector<StageTiming>& timings) {
  if (!spec.phases.empty())
    throw std::logic_error("time_to_train: a spec with phases needs each phase's timings");
  return time_to_train(spec, {{config, timings}});
}

TrainingTime time_to_train(const TrainingSpec& spec, const std::vector<PhaseTimings>& phases) {
  if (phases.size() != std::max<size_t>(1, spec.phases.size())) {
    throw std::logic_error(fmt::format("time_to_train: {} phase timings for {} phases",
                                       phases.size(), spec.phases.size()));
  }
  const std::string& optimizer = phases.front().config.optimizer;
  TrainingTime out;
  if (spec.total_steps > 0) out.total_steps = spec.total_steps;
  if (spec.total_samples > 0) {
    const int64_t batch = global_batch(phases.front().config);
    out.total_steps = (spec.total_samples + batch - 1) / batch;
  }
  std::vector<int64_t> lengths(phases.size(), 0);  // steps to a target: all in the last phase
  if (out.total_steps) {
    lengths = phase_steps(spec.phases, *out.total_steps);
    out.warmup_steps = warmup_of(spec, optimizer, *out.total_steps);
    out.time_to_train_h = hours(phases, lengths, *out.total_steps, *out.warmup_steps);
    if (!spec.phases.empty()) out.phases = phases_label(phases, lengths, *out.total_steps);
  }
  const auto target = spec.steps_to_target.find(optimizer);
  if (target == spec.steps_to_target.end()) return out;
  if (!target->second) {
    out.steps_to_target = kNotReached;
    return out;
  }
  const int64_t steps = *target->second;
  out.steps_to_target = std::to_string(steps);
  out.time_to_target_h =
      hours(phases, lengths, steps, warmup_to_target(spec, optimizer, out.total_steps, steps));
  return out;
}

std::optional<int64_t> first_step_reaching(std::string_view metrics_csv, std::string_view source,
                                           const std::string& metric, double target) {
  const CsvTable table(metrics_csv, source);
  table.column("step");
  table.column(metric);
  const bool higher = higher_is_better(metric);
  for (size_t row = 0; row < table.rows(); ++row) {
    const std::optional<double> value = table.maybe(row, metric);
    if (value && (higher ? *value >= target : *value <= target)) return table.integer(row, "step");
  }
  return std::nullopt;
}

std::optional<RunWarmup> run_warmup(std::string_view metrics_csv, std::string_view source) {
  const CsvTable table(metrics_csv, source);
  const auto& header = table.header();
  if (std::find(header.begin(), header.end(), "stage") == header.end() || table.rows() == 0)
    return std::nullopt;
  RunWarmup run;
  for (size_t row = 0; row < table.rows(); ++row) {
    if (table.text(row, "stage") == stage_name(Stage::kWarmup)) ++run.warmup_steps;
  }
  run.steps = table.integer(table.rows() - 1, "step");
  if (run.steps < 1) return std::nullopt;
  return run;
}

}  // namespace compopt::sim
