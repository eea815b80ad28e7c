#pragma once
// Where a grid's clusters and compute times come from, for the header of `compopt sweep`: each
// scenario's cluster origin (cluster_table.h: a preset, a preset with keys changed, or the plain
// defaults) and its compute summary (net_models/compute_model.h: measured, or the model with
// its utilisation and source), each distinct line once, in the order the scenarios first give
// it.

#include <string>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli {

// At most `limit` lines, then one line counting the ones left out. Throws as
// sim::resolve_scenario for a scenario that does not resolve.
std::vector<std::string> scenario_origin_lines(const std::vector<sim::Scenario>& scenarios,
                                               size_t limit);

}  // namespace compopt::cli
