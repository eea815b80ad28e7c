#pragma once
// The optimizer a sweep's speedups are against, defined once here and used by both the table
// `compopt sweep` prints (sweep_summary.h) and sweep.csv's columns (sweep_totals.h):
//
//   speedup_baseline(optimizer, training_baseline)
//     = training_baseline, the [training] table's `baseline` key (training_table.h), if given;
//     = else the optimizer's own baseline in the optimizer registry (OptimizerEntry::baseline:
//       adam for 1-bit Adam and Birder, lamb for 1-bit LAMB, momentum-sgd for EF momentum SGD,
//       ...), the optimizer itself for one that is a baseline (adam, lamb, sgd, ...).
//
// A speedup compares scenarios of the same group (same everything but the optimizer, the
// columns of sim::scenario_key_columns); where the group has no scenario of the baseline there
// is none.

#include <string>

namespace compopt::cli {

// `optimizer` and `training_baseline` are canonical names (training_baseline may be empty).
std::string speedup_baseline(const std::string& optimizer, const std::string& training_baseline);

// `csv` (a sweep's header and rows, sim/scenario.h) with two columns appended:
//   end_to_end_speedup  the baseline's time_to_train_h / the row's (4 decimals); empty when the
//                       group has no baseline row or either time is missing;
//   speedup_baseline    speedup_baseline(the row's optimizer, training_baseline).
std::string with_speedup_columns(const std::string& csv, const std::string& training_baseline);

}  // namespace compopt::cli
