#pragma once
// `--sensitivity` of `compopt profile` and `compopt sweep` (docs/whatif.md, "What the answer
// depends on"): the flag, and the run of the analyses (experiments/scenario/sensitivity.h)
// once the command's own results are written: it prints each analysis's table and verdict,
// writes sensitivity.csv into the run directory and returns what run.json records.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <vector>

#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/sensitivity.h"

namespace compopt::cli {

void add_sensitivity_flag(CLI::App& cmd, bool& sensitivity);

// Simulates the plans `jobs` at a time (0: every core).
nlohmann::json write_sensitivity(const std::vector<SensitivityPlan>& plans, int jobs,
                                 const RunDirectory& dir);

}  // namespace compopt::cli
