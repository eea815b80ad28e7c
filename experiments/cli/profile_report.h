#pragma once
// What `compopt profile` reports about one simulated step: the breakdown table, the
// implementation line, the low..high band and its inputs, the baseline (NCCL's default and
// tuned), the time to train and the memory per GPU, printed; and run.json's records of the
// buckets, algorithms and band. profile_command.cc simulates and calls these in order.

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "experiments/scenario/tuned_baseline_columns.h"
#include "sim/scenario.h"
#include "sim/step_simulator.h"

namespace compopt::cli {

// The breakdown table's header and one stage's row.
void print_breakdown_header();
void print_breakdown_row(const sim::StageTiming& t);

// The implementation profile the step ran on, as the header states it.
void print_implementation(const sim::StepConfig& c);

// Per stage name, its buckets used and its algorithm charged, for run.json.
nlohmann::json buckets_used(const std::vector<sim::StageTiming>& timings);
nlohmann::json algorithms(const std::vector<sim::StageTiming>& timings);

// The low..high band of each stage and the input ranges it comes from; run.json's record of it.
void print_bounds(const sim::StepConfig& config, const std::vector<sim::StageTiming>& timings,
                  const sim::ScenarioTotals& totals);
nlohmann::json band_json(const sim::StepConfig& config,
                         const std::vector<sim::StageTiming>& timings,
                         const sim::ScenarioTotals& totals);

// With --tune-baseline (`b` set): the two baseline runs, a warning where NCCL's choice is the
// slower algorithm, and the profiled optimizer's speedups against both; without, a line saying
// how to get them.
void print_baseline(const sim::StepConfig& config, const sim::StageTiming& steady,
                    const std::optional<ScenarioBaseline>& b);

// The [training] figures, when the config gives them, with their low..high bounds.
void print_training(const sim::ScenarioTotals& totals);

// Memory per GPU (with [training] phases, of the phase needing the most), and a warning when it
// does not fit.
void print_memory(const sim::StepConfig& c, const sim::ScenarioTotals& totals);

}  // namespace compopt::cli
