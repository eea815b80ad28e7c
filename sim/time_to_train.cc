#include "sim/time_to_train.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

double hours(const std::vector<StageTiming>& timings, int64_t steps, int64_t warmup) {
  const double warm = static_cast<double>(warmup), rest = static_cast<double>(steps - warmup);
  // Single-stage optimizers have no warmup: front() is back(), weighted 0.
  return (warm * timings.front().step_time_s + rest * timings.back().step_time_s) / kSecondsPerHour;
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
  TrainingTime out;
  if (spec.total_steps > 0) out.total_steps = spec.total_steps;
  if (spec.total_samples > 0) {
    const int64_t batch = global_batch(config);
    out.total_steps = (spec.total_samples + batch - 1) / batch;
  }
  if (out.total_steps) {
    out.warmup_steps = warmup_of(spec, config.optimizer, *out.total_steps);
    out.time_to_train_h = hours(timings, *out.total_steps, *out.warmup_steps);
  }
  const auto target = spec.steps_to_target.find(config.optimizer);
  if (target == spec.steps_to_target.end()) return out;
  if (!target->second) {
    out.steps_to_target = kNotReached;
    return out;
  }
  const int64_t steps = *target->second;
  out.steps_to_target = std::to_string(steps);
  out.time_to_target_h =
      hours(timings, steps, warmup_to_target(spec, config.optimizer, out.total_steps, steps));
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
