#pragma once
// The uncertain inputs of a speedup prediction (docs/whatif.md, "What the answer depends
// on"): one table row per input, each with the two ends of its documented range. `compopt
// profile --sensitivity` and `compopt sweep --sensitivity` (sensitivity.h) move each input to
// its low and to its high end, one at a time, everything else at the scenario's value.
//
// An input changes a resolved scenario (sim::StepConfig): a field of the cluster, the GPU,
// the workload or the step. "Low" and "high" are the two ends of the range as the table
// orders them (less bandwidth, lower utilisation, ...; for a choice such as the allreduce
// algorithm, its two alternatives). Adding an input is adding one row to the table in the .cc.

#include <string>
#include <vector>

#include "sim/step_simulator.h"

namespace compopt::cli {

enum class InputEnd { kLow, kHigh };

struct UncertainInput {
  std::string name;     // e.g. "buckets"
  std::string changes;  // what it changes in the scenario (a field)
  std::string source;   // where its range is documented, or the assumption it is
  // Puts the input of `config` at one end of its range; returns that value as printed
  // (e.g. "32", "x0.85", "2 us").
  std::string (*set)(sim::StepConfig& config, InputEnd end);
};

// Every uncertain input, in the order tables and CSVs list them.
const std::vector<UncertainInput>& uncertain_inputs();

}  // namespace compopt::cli
