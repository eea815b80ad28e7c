#pragma once
// One-at-a-time sensitivity of a speedup (docs/whatif.md, "What the answer depends on"): for
// an optimizer in a scenario, the speedup over its baseline (speedup_baseline.h) at the
// scenario's own inputs, then with each uncertain input (sensitivity_inputs.h) at its low and
// at its high end, everything else at the scenario's value.
//
//   speedup = the baseline's step time / the optimizer's step time, of each one's last stage
//             (the steady state, as sweep_summary.h compares them)
//   verdict = the optimizer pays where speedup > 1; an input flips the verdict when it pays at
//             one of its ends and not at the scenario's inputs, or the other way round.
//
// plan_sensitivity lists the scenarios to simulate; evaluate_sensitivity turns their step
// times into the rows; simulate_sensitivity runs the plans' scenarios forked
// (forked_simulation.h) and evaluates them.

#include <string>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli {

// The scenarios of one analysis, in this order: the optimizer and the baseline at the
// scenario's inputs, then for each input of uncertain_inputs(): the optimizer and the baseline
// at its low end, then at its high end.
struct SensitivityPlan {
  std::string label;  // names the scenario in tables and sensitivity.csv
  std::string optimizer, baseline;
  std::vector<sim::Scenario> scenarios;
  std::vector<std::string> low_values, high_values;  // each input's ends, as printed
  std::vector<std::string> sources;                  // where each input's range comes from
};

struct SensitivityRow {
  std::string input, low_value, high_value, source;
  bool measured = false;  // UncertainInput::measured: in the band of every prediction
  double speedup_low = 0, speedup_high = 0;
  bool flips = false;
};

struct Sensitivity {
  std::string label, optimizer, baseline;
  double expected_speedup = 0;
  std::vector<SensitivityRow> rows;         // one per input, in uncertain_inputs() order
  double min_speedup = 0, max_speedup = 0;  // over the expected speedup and every row's ends
};

// The baseline of `optimizer` (canonical) for a sensitivity analysis; throws InvalidArgument
// when the optimizer is its own baseline (nothing to compare). `option` starts the message.
std::string sensitivity_baseline(const std::string& optimizer, const std::string& training_baseline,
                                 const std::string& option);

// The plan of `config` (resolved; its optimizer) against `baseline`.
SensitivityPlan plan_sensitivity(const sim::StepConfig& config, const std::string& baseline,
                                 std::string label);

// The plans of a sweep: one per scenario whose optimizer is not its own baseline, labelled
// "scenario <its number> (<gpus> GPUs)". Throws InvalidArgument, `option` starting the message,
// when no optimizer of the sweep has a baseline, when a baseline is not among the sweep's
// optimizers, or when the plans hold more than kMaxSweepScenarios scenarios.
std::vector<SensitivityPlan> sweep_sensitivity_plans(const std::vector<sim::Scenario>& scenarios,
                                                     const std::string& option);

// `step_times`: the last stage's step time of each of plan.scenarios, in order. Throws
// std::invalid_argument when the count differs or a time is not positive.
Sensitivity evaluate_sensitivity(const SensitivityPlan& plan,
                                 const std::vector<double>& step_times);

// Simulates every plan's scenarios, `parallel` processes at once, and evaluates each plan.
std::vector<Sensitivity> simulate_sensitivity(const std::vector<SensitivityPlan>& plans,
                                              int parallel);

// The scenarios of every plan, in order (for the host-memory check before simulating).
std::vector<sim::Scenario> plan_scenarios(const std::vector<SensitivityPlan>& plans);

}  // namespace compopt::cli
