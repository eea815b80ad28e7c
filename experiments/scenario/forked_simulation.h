#pragma once
// The one way compopt simulates the step of several scenarios: `compopt sweep`, the simulator
// studies of `compopt reproduce` and the Python package (compopt.simulate, compopt.sweep) all
// call simulate_forked. Each scenario runs in a forked process of its own (SimGrid allows one
// engine per process; forking also spreads the scenarios over the cores, forked_jobs.h),
// `parallel` at a time. The child runs sim::simulate_step and, when asked, the runs of the
// uncertain inputs (sim::simulate_step_spread), and sends them back as JSON: the codec of
// sim::StageTiming is lossless, so the parent computes rows and totals from exactly what the
// child simulated.
//
// Every scenario is resolved in the parent first, so bad input throws InvalidArgument before
// anything is forked. An InvalidArgument thrown in a child (a platform file SimGrid refuses)
// comes back as InvalidArgument, any other failure as std::runtime_error; both messages start
// with the scenario's description and "failed: ".

#include <cstddef>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli {

// What a child sends back for one scenario.
struct SimulatedStep {
  std::vector<sim::StageTiming> timings;  // simulate_step's rows
  std::optional<sim::StepSpread> spread;  // when ForkedSimulation::spread
  // With the spread, the step of each [training] phase (sim::phase_scenarios), with its own.
  std::vector<SimulatedStep> phases = {};
};

struct ForkedSimulation {
  int parallel = 1;     // processes at once (parallel_jobs, forked_jobs.h, for a default)
  bool spread = false;  // also simulate the step at the ends of the uncertain inputs, and the
                        // phases of the scenario's [training] run (the rows' whole-run columns)
  // In the parent, as the k-th requested scenario finishes.
  std::function<void(size_t)> on_done = {};
  // Names scenario i (an index into the scenarios) in error messages; unset: "scenario <i+1>
  // (<optimizer> on <gpus> GPUs)", resolved values.
  std::function<std::string(size_t)> describe = {};
};

// The steps of scenarios[indexes[k]] for every k, in the order of `indexes`.
std::vector<SimulatedStep> simulate_forked(const std::vector<sim::Scenario>& scenarios,
                                           const std::vector<size_t>& indexes,
                                           const ForkedSimulation& how);
// The steps of every scenario, in order.
std::vector<SimulatedStep> simulate_forked(const std::vector<sim::Scenario>& scenarios,
                                           const ForkedSimulation& how);

// The spread of one resolved scenario (sim::spread_of), each input end simulated in a forked
// child, `parallel` at once: how `compopt profile` spreads its band's runs over the cores.
// Failures come back as for simulate_forked, described as "<input> at its low/high end".
sim::StepSpread simulate_spread_forked(const sim::StepConfig& config, int parallel);

// The phases of `scenario`'s [training] run as sim::scenario_totals takes them, from their
// simulated steps (SimulatedStep::phases, each with its spread). Throws std::logic_error when
// the counts differ or a spread is missing.
std::vector<sim::SimulatedPhase> simulated_phases(const sim::Scenario& scenario,
                                                  const std::vector<SimulatedStep>& steps);
// The phases of `scenario`, each simulated with its spread in a forked child, `parallel` at
// once: how `compopt profile`, which simulates its own step in-process, gets them.
std::vector<sim::SimulatedPhase> simulate_phases_forked(const sim::Scenario& scenario,
                                                        int parallel);

// The JSON text a child sends (also what `mpirun ... compopt sweep` ranks send to rank 0); decode
// throws for text that is not such JSON or lacks a field.
std::string encode_simulated_step(const SimulatedStep& step);
SimulatedStep decode_simulated_step(std::string_view text);

}  // namespace compopt::cli
