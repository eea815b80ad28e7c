#include "experiments/scenario/sensitivity.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"
#include "experiments/scenario/forked_simulation.h"
#include "experiments/scenario/sensitivity_inputs.h"
#include "experiments/scenario/speedup_baseline.h"
#include "experiments/scenario/sweep_config.h"

namespace compopt::cli {
namespace {

// The scenario that resolves to `config` exactly (every preset already applied).
sim::Scenario scenario_of(const sim::StepConfig& config) {
  sim::Scenario s;
  s.workload = config.workload.name;
  s.cluster = config.cluster.name;
  s.workload_spec = config.workload;
  s.cluster_spec = config.cluster;
  s.optimizer = config.optimizer;
  s.batch_per_gpu = config.batch_per_gpu;
  s.grad_accum = config.grad_accum;
  s.overlap = config.overlap;
  s.buckets = config.buckets;
  s.compressed_collectives = config.compressed_collectives;
  s.implementation = config.implementation;
  return s;
}

// `config` for the optimizer and for `baseline`, appended to `out`.
void add_pair(std::vector<sim::Scenario>& out, const sim::StepConfig& config,
              const std::string& baseline) {
  out.push_back(scenario_of(config));
  sim::StepConfig base = config;
  base.optimizer = baseline;
  out.push_back(scenario_of(base));
}

bool pays(double speedup) { return speedup > 1; }

}  // namespace

std::string sensitivity_baseline(const std::string& optimizer, const std::string& training_baseline,
                                 const std::string& option) {
  std::string baseline = speedup_baseline(optimizer, training_baseline);
  if (baseline == optimizer) {
    throw InvalidArgument(fmt::format(
        "{}: optimizer {} is its own baseline, so it has no speedup to analyse; expected a "
        "compressed optimizer (e.g. onebit-adam, onebit-lamb, birder) or a [training] baseline",
        option, optimizer));
  }
  return baseline;
}

SensitivityPlan plan_sensitivity(const sim::StepConfig& config, const std::string& baseline,
                                 std::string label) {
  SensitivityPlan plan{std::move(label), config.optimizer, baseline, {}, {}, {}, {}};
  add_pair(plan.scenarios, config, baseline);
  for (const UncertainInput& input : uncertain_inputs()) {
    sim::StepConfig low = config, high = config;
    const InputSetting at_low = input.set(low, InputEnd::kLow);
    plan.low_values.push_back(at_low.value);
    plan.high_values.push_back(input.set(high, InputEnd::kHigh).value);
    plan.sources.push_back(at_low.source);
    add_pair(plan.scenarios, low, baseline);
    add_pair(plan.scenarios, high, baseline);
  }
  return plan;
}

Sensitivity evaluate_sensitivity(const SensitivityPlan& plan,
                                 const std::vector<double>& step_times) {
  if (step_times.size() != plan.scenarios.size())
    throw std::invalid_argument(fmt::format("evaluate_sensitivity: {} step times for {} scenarios",
                                            step_times.size(), plan.scenarios.size()));
  if (std::any_of(step_times.begin(), step_times.end(), [](double t) { return !(t > 0); }))
    throw std::invalid_argument("evaluate_sensitivity: a step time is not positive");
  // Speedup of the pair starting at index i: the baseline's time / the optimizer's.
  const auto speedup = [&](size_t i) { return step_times[i + 1] / step_times[i]; };
  Sensitivity s{plan.label, plan.optimizer, plan.baseline, speedup(0), {}, speedup(0), speedup(0)};
  const std::vector<UncertainInput>& inputs = uncertain_inputs();
  for (size_t k = 0; k < inputs.size(); ++k) {
    SensitivityRow row{inputs[k].name,     plan.low_values[k], plan.high_values[k], plan.sources[k],
                       inputs[k].measured, speedup(2 + 4 * k), speedup(4 + 4 * k),  false};
    row.flips = pays(row.speedup_low) != pays(s.expected_speedup) ||
                pays(row.speedup_high) != pays(s.expected_speedup);
    s.min_speedup = std::min({s.min_speedup, row.speedup_low, row.speedup_high});
    s.max_speedup = std::max({s.max_speedup, row.speedup_low, row.speedup_high});
    s.rows.push_back(std::move(row));
  }
  return s;
}

std::vector<SensitivityPlan> sweep_sensitivity_plans(const std::vector<sim::Scenario>& scenarios,
                                                     const std::string& option) {
  std::set<std::string> optimizers;
  for (const sim::Scenario& s : scenarios)
    optimizers.insert(optimizer_registry().canonical(s.optimizer));
  std::vector<SensitivityPlan> plans;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const sim::StepConfig config = sim::resolve_scenario(scenarios[i]);
    const std::string baseline = speedup_baseline(config.optimizer, scenarios[i].training.baseline);
    if (baseline == config.optimizer) continue;
    if (optimizers.count(baseline) == 0) {
      throw InvalidArgument(fmt::format(
          "{}: the speedup of {} is against {}, which sweep.optimizers lacks; expected {} among "
          "sweep.optimizers (e.g. --set sweep.optimizers=[{},{}])",
          option, config.optimizer, baseline, baseline, baseline, config.optimizer));
    }
    plans.push_back(plan_sensitivity(
        config, baseline, fmt::format("scenario {} ({} GPUs)", i + 1, config.cluster.gpus())));
  }
  if (plans.empty()) {
    throw InvalidArgument(fmt::format(
        "{}: every optimizer of the sweep ({}) is its own baseline, so there is no speedup to "
        "analyse; expected a compressed optimizer (e.g. onebit-adam) in sweep.optimizers",
        option, fmt::join(optimizers, ", ")));
  }
  if (plans.size() * plans.front().scenarios.size() > kMaxSweepScenarios) {
    throw InvalidArgument(fmt::format(
        "{}: {} analyses of {} simulations each, expected at most {} simulations; sweep fewer "
        "scenarios",
        option, plans.size(), plans.front().scenarios.size(), kMaxSweepScenarios));
  }
  return plans;
}

std::vector<sim::Scenario> plan_scenarios(const std::vector<SensitivityPlan>& plans) {
  std::vector<sim::Scenario> all;
  for (const SensitivityPlan& plan : plans)
    all.insert(all.end(), plan.scenarios.begin(), plan.scenarios.end());
  return all;
}

std::vector<Sensitivity> simulate_sensitivity(const std::vector<SensitivityPlan>& plans,
                                              int parallel) {
  const std::vector<SimulatedStep> steps =
      simulate_forked(plan_scenarios(plans), {.parallel = parallel});
  std::vector<Sensitivity> out;
  size_t next = 0;
  for (const SensitivityPlan& plan : plans) {
    std::vector<double> times;
    for (size_t i = 0; i < plan.scenarios.size(); ++i)
      times.push_back(steps[next++].timings.back().step_time_s);
    out.push_back(evaluate_sensitivity(plan, times));
  }
  return out;
}

}  // namespace compopt::cli
