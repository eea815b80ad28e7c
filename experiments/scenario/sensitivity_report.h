#pragma once
// How a sensitivity analysis (sensitivity.h) is shown: the table `compopt profile
// --sensitivity` and `compopt sweep --sensitivity` print, its verdict line, sensitivity.csv and
// its record in run.json.
//
// Verdict: "<optimizer> pays in every case (<min>x .. <max>x)" when the speedup is above 1 at
// every end of every input, "<optimizer> pays in no case (...)" when it is above 1 at none,
// else "<optimizer>: <min>x .. <max>x, depends on: <input> (<its min>x .. <its max>x), ..."
// naming each input that flips the verdict, its range taken over its two ends and the
// expected speedup. Speedups show two decimals, four where two would read 1.00 for one that is
// not 1.
//
// sensitivity.csv: one row per (analysis, input), columns
//   scenario, optimizer, baseline, input, low_value, high_value, speedup_low, speedup_high,
//   expected_speedup, flips (true/false), source (where the input's range comes from in this
//   scenario), kind (measured: in the band of every prediction; choice: a what-if only).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/scenario/sensitivity.h"

namespace compopt::cli {

std::string sensitivity_verdict(const Sensitivity& s);

// The printed table of one analysis and its verdict (lines ending in '\n').
std::string sensitivity_table(const Sensitivity& s);

std::string sensitivity_csv(const std::vector<Sensitivity>& analyses);

// {"inputs": [...], "analyses": [{scenario, optimizer, baseline, expected_speedup,
// min_speedup, max_speedup, verdict}]}: what run.json records.
nlohmann::json sensitivity_json(const std::vector<Sensitivity>& analyses);

}  // namespace compopt::cli
