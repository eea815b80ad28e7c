#pragma once
// The calibration workflow checked on public data (docs/validation.md, "Calibrating on part
// of a thread"; `compopt validate calibrate-workflow`):
//
// - the rows of each GitHub thread of data/published/nccl_tests_public.csv with the same GPUs
//   per node are split: the next-to-largest node count (and any 1-node rows) calibrates, every
//   other node count is held back and predicted; with one node count, the larger sizes are
//   predicted from the smallest. The same held-back rows are also predicted uncalibrated
//   (as `validate public-checks` does), so the two errors compare row for row;
// - 1-bit Adam's Table 1 goes through the same fit as a user's logs, for each preset it
//   describes, and its fitted values are set beside the preset's.

#include <string>
#include <vector>

#include "net_models/calibration_rows.h"
#include "net_models/nccl_tests_rows.h"

namespace compopt::calibration {

struct HoldoutRow {
  std::string case_name;
  bool calibrates = false;  // in the calibration part (else held back)
  double published_s = 0, uncalibrated_s = 0, calibrated_s = 0;
  double uncalibrated_error_pct = 0, calibrated_error_pct = 0;
};

struct ThreadHoldout {
  std::string url;
  std::string split;   // which rows calibrate, in words
  std::string fitted;  // the fitted values, in words
  std::vector<HoldoutRow> rows;
};

// Every (thread, GPUs per node) of `rows` with at least two rows, split and predicted as above.
std::vector<ThreadHoldout> holdout_threads(const std::vector<net::NcclTestsRow>& rows);

struct PresetRecalibration {
  std::string cluster, parameter;
  double fitted = 0, preset = 0;
  int rows = 0;
  std::string status;
};

// Table 1 through fit_cluster, for each preset with rows in it.
std::vector<PresetRecalibration> recalibrate_presets(const std::vector<net::ProfileRow>& rows);

}  // namespace compopt::calibration
