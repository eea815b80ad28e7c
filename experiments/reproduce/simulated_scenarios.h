#pragma once
// Step simulations for the simulator studies: every scenario is simulated in its own forked
// process (experiments/scenario/forked_simulation.h), `jobs` at a time, and its stage timings
// come back in scenario order.

#include <string_view>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli::reproduce {

using StageTimings = std::vector<sim::StageTiming>;

// Throws InvalidArgument (bad scenario, before any work) or std::runtime_error.
std::vector<StageTimings> simulate_scenarios(const std::vector<sim::Scenario>& scenarios, int jobs);

// The stage a comparison uses: "compression" when the optimizer has one, else
// its only stage ("full_precision").
const sim::StageTiming& steady_stage(const StageTimings& stages);

// Whether two optimizer names (or aliases) name the same registered optimizer: the papers'
// tables and the published rows call momentum SGD `sgdm`, an alias of `momentum-sgd`.
bool same_step_optimizer(std::string_view a, std::string_view b);

}  // namespace compopt::cli::reproduce
