#pragma once
// The tuned uncompressed baseline of every scenario, for `compopt sweep --tune-baseline` (or
// `[sweep] tune_baseline = true`) and compopt.sweep / compopt.simulate with tune_baseline=True:
// each scenario's speedup baseline (speedup_baseline.h) run as NCCL's default rule runs it and
// tuned (sim/tuned_baseline.h), each distinct baseline once, in forked processes; then the
// columns they add to sweep.csv and profile.csv, the same on every stage row of a scenario but
// the speedups, which are the row's own:
//   nccl_default_baseline_step_time_s, nccl_default_baseline_algorithm,
//   nccl_default_baseline_buckets_used   the baseline as given (NCCL's rule, the config's
//                                        buckets)
//   tuned_baseline_step_time_s, tuned_baseline_algorithm, tuned_baseline_buckets (the setting,
//   StepConfig::buckets, 0 = the implementation's bucket size), tuned_baseline_buckets_used
//   speedup_vs_nccl_default, speedup_vs_tuned_baseline   that baseline's step time / the row's
//   nccl_default_slower    1 where NCCL's default algorithm is the slower one
//                          (TunedBaseline::default_is_slower), else 0
//   nccl_default_slowdown  NCCL's default step time / the other algorithm's (1 where only one
//                          algorithm runs)

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/scenario/forked_simulation.h"
#include "sim/scenario.h"
#include "sim/tuned_baseline.h"

namespace compopt::cli {

// One scenario's baseline and its two runs.
struct ScenarioBaseline {
  std::string optimizer;  // speedup_baseline of the scenario's optimizer
  sim::TunedBaseline runs;
};

// The scenarios whose baselines tune_scenario_baselines runs, one per distinct baseline
// (scenarios of one config: they share its workload and cluster tables), for memory checks.
std::vector<sim::Scenario> baseline_scenarios(const std::vector<sim::Scenario>& scenarios);

// The baseline of every scenario, in order; `parallel` processes at once. Throws as
// sim::resolve_scenario (before anything is forked) and as simulate_forked.
std::vector<ScenarioBaseline> tune_scenario_baselines(const std::vector<sim::Scenario>& scenarios,
                                                      int parallel);

// `csv` (profile.csv or sweep.csv of `steps`, one row per stage of each, in order, and nothing
// else) with the columns above appended. Throws std::logic_error when the rows do not match.
std::string with_tuned_baseline_columns(const std::string& csv,
                                        const std::vector<SimulatedStep>& steps,
                                        const std::vector<ScenarioBaseline>& baselines);

// "ring in 14 buckets (the implementation's bucket size): 1834.66 ms": the algorithm charged,
// the buckets used and asked for, the step time.
std::string describe_baseline_run(const sim::BaselineRun& run);

// run.json's record of one baseline: its optimizer and the NCCL-default, tuned and other-
// algorithm runs (algorithm, allreduce, buckets, buckets_used, step_time_s) and
// nccl_default_slower.
nlohmann::json tuned_baseline_json(const ScenarioBaseline& baseline);

// What `compopt sweep --tune-baseline` prints: per distinct baseline one line with its NCCL
// default and tuned runs (and a warning where NCCL's default is the slower algorithm), then the
// speedups against both of each scenario of another optimizer (its last stage); at most
// `limit` lines, then a count of the rest.
std::string tuned_baseline_report(const std::vector<sim::Scenario>& scenarios,
                                  const std::vector<SimulatedStep>& steps,
                                  const std::vector<ScenarioBaseline>& baselines, size_t limit);

}  // namespace compopt::cli
