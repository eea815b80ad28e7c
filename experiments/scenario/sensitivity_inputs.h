#pragma once
// The inputs `compopt profile --sensitivity` and `compopt sweep --sensitivity` move
// (sensitivity.h; docs/whatif.md, "What the answer depends on"), one at a time, each to the two
// ends of its range, everything else at the scenario's value. Two kinds:
//
//   measured  the uncertain measured quantities of the scenario (sim/input_ranges.h):
//             bandwidths, compute utilisation, latency, per-message cost. Their ranges are the
//             scenario's own (its cluster, GPU, transport, workload), and the same ranges make
//             the low..high band of every prediction (sim/step_spread.h).
//   choice    what the scenario or its implementation profile states: buckets, allreduce
//             algorithm, overlap, optimizer step kernel, compressed collectives. Moving one answers
//             "what if I chose otherwise"; a stated choice is not an error of the prediction, so
//             choices never enter the band.
//
// "Low" and "high" are the two ends of the range as the table orders them (less bandwidth,
// lower utilisation, ...; for a choice, its two alternatives). Adding a choice is adding one
// row to the table in the .cc; adding a measured input is adding it to sim/input_ranges.cc.

#include <functional>
#include <string>
#include <vector>

#include "sim/step_simulator.h"

namespace compopt::cli {

enum class InputEnd { kLow, kHigh };

// One end of an input in a scenario: its value as printed (e.g. "32", "x0.85", "2 us") and
// where its range comes from.
struct InputSetting {
  std::string value, source;
};

struct UncertainInput {
  std::string name;       // e.g. "buckets"
  std::string changes;    // what it changes in the scenario (a field)
  bool measured = false;  // a measured quantity (in the band) or a choice (what-if only)
  // Puts the input of `config` at one end of its range.
  std::function<InputSetting(sim::StepConfig& config, InputEnd end)> set;
};

// Every input, the measured ones first, in the order tables and CSVs list them.
const std::vector<UncertainInput>& uncertain_inputs();

}  // namespace compopt::cli
