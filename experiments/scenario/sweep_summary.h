#pragma once
// The compact result table `compopt sweep` prints after writing sweep.csv: one line per
// scenario group (scenarios that differ only in the optimizer), each optimizer's step time in
// ms and its speedup over its baseline in the group.
//
// - Baseline: speedup_baseline (speedup_baseline.h), the same optimizer sweep.csv's
//   end_to_end_speedup is against and its speedup_baseline column names; a line under the
//   header says which. speedup = baseline ms / optimizer ms; none for a baseline itself or
//   where the group lacks the baseline.
// - An optimizer with several stages (onebit-adam: warmup, compression) shows its last stage,
//   the steady state the run spends most steps in; the header names it.
// - Rows with bounds show them as [low..high] ms after the expected time (the step at the
//   cluster's high and low bandwidths, sim/step_spread.h).
// - Fields equal in every group (workload, cluster, batch, ...) go into the header line; the
//   others become columns, so the table stays narrow.

#include <string>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli {

// The values of one sweep.csv row the table needs (resolved, as the CSV prints them).
struct SweepRow {
  std::string workload, cluster, topology;
  std::string gpu = {};
  int gpus = 0, gpus_per_node = 0;
  int nics_per_node = 1;
  double inter_node_gbps = 0;
  int batch_per_gpu = 0, grad_accum = 1;
  std::string overlap = "auto";
  int buckets = 0;  // as configured; 0: the implementation's bucket size
  std::string implementation = "ddp";
  std::string optimizer, stage;
  int buckets_used = 0;  // what the step simulator used (sim::StageTiming::buckets)
  std::string algorithm = {};
  double compute_utilization = 0;
  std::string compute_utilization_source = {};  // net::utilization_source_kind
  double step_time_s = 0;
  // The band over the measured inputs (sim/step_spread.h); 0: not simulated, no range.
  double step_time_low_s = 0, step_time_high_s = 0;
};

SweepRow sweep_row(const sim::StepConfig& config, const sim::StageTiming& timing,
                   const sim::StageBounds& bounds = {});

// The table (several lines, each ending in '\n'); rows in sweep.csv order. `training_baseline`:
// the [training] baseline (sim::TrainingSpec::baseline), or empty. Empty rows: "".
std::string sweep_summary(const std::vector<SweepRow>& rows, const std::string& training_baseline);

}  // namespace compopt::cli
