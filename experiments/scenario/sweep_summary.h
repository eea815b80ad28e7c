#pragma once
// The compact result table `compopt sweep` prints after writing sweep.csv: one line per
// scenario group (scenarios that differ only in the optimizer), each optimizer's step time in
// ms and its speedup over the group's baseline.
//
// - Baseline: the first optimizer of the sweep (in row order, which follows sweep.optimizers)
//   whose every stage is "full_precision" (uncompressed ring allreduce: adam, momentum-sgd,
//   lamb, ...); if none is, the first optimizer. speedup = baseline ms / optimizer ms.
// - An optimizer with several stages (onebit-adam: warmup, compression) shows its last stage,
//   the steady state the run spends most steps in; the header names it.
// - Rows with bounds show them as [low..high] ms after the expected time (the step at the
//   cluster's high and low bandwidths, sim/step_spread.h).
// - Fields equal in every group (workload, cluster, batch, ...) go into the header line; the
//   others become columns, so the table stays narrow.

#include <nlohmann/json.hpp>
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
  int buckets = 0;
  std::string optimizer, stage;
  double step_time_s = 0;
  // Bounds at the cluster's bandwidth spread (sim/step_spread.h); 0: not simulated, no range.
  double step_time_low_s = 0, step_time_high_s = 0;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SweepRow, workload, cluster, topology, gpu, gpus, gpus_per_node,
                                   nics_per_node, inter_node_gbps, batch_per_gpu, grad_accum,
                                   overlap, buckets, optimizer, stage, step_time_s, step_time_low_s,
                                   step_time_high_s)

SweepRow sweep_row(const sim::StepConfig& config, const sim::StageTiming& timing,
                   const sim::StageBounds& bounds = {});

// The table (several lines, each ending in '\n'); rows in sweep.csv order. Empty rows: "".
std::string sweep_summary(const std::vector<SweepRow>& rows);

}  // namespace compopt::cli
