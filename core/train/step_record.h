#pragma once
// One row of training metrics (metrics.csv), recorded after each step.
// - samples: examples consumed so far by all ranks (step x ranks x batch).
// - epoch: step / steps_per_epoch (fractional; a rank's epoch is one pass over its shard).
// - stage: the optimizer stage the step ran in (stage_name()).
// - train_loss: the step's minibatch loss averaged over ranks.
// - test_*: set on evaluation steps only.
// - var_*: the optimizer's fused ||v||_2 and ||v_t||_1/||v_{t-Delta}||_1, when it has them.
// - bytes_sent*: cumulative bytes sent by the optimizer since the start of
//   training, per rank (mean over ranks; the metric collectives are excluded);
//   *_inter_node counts the bytes that crossed a node boundary.
// - time_s: Communicator::now() of rank 0 after the step, relative to the start
//   (the simulated clock on sim, wall clock elsewhere).
// - step_wall_s: measured wall-clock seconds of the whole step on rank 0 (batch,
//   forward/backward, optimizer step, metric collectives, evaluation), on every backend.
// - compute_s, comm_s, compression_s: the step's split. On wall-clock backends, measured
//   seconds on rank 0: its forward/backward pass; the optimizer step outside compression
//   (its collectives plus its element-wise update); the encode/decode work of the compressed
//   allreduces (core/comm/compression_clock.h); not reproducible run to run. On a simulated
//   clock (TrainOptions::simulated_clock, the sim backend) simulated seconds: the compute
//   and compression charged to the clock and the simulated time of the optimizer step.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/util/csv_schema.h"

namespace compopt {

struct StepRecord {
  int64_t step = 0;
  int64_t samples = 0;
  double epoch = 0;
  std::string stage;
  double lr = 0;
  double train_loss = 0;
  std::optional<double> test_loss;
  std::optional<double> test_accuracy;
  std::optional<double> var_norm_l2;
  std::optional<double> var_ratio_l1;
  std::optional<double> var_norm_l1;  // fused ||v||_1 (not written to metrics.csv)
  double bytes_sent = 0;
  double bytes_sent_inter_node = 0;
  double time_s = 0;
  double step_wall_s = 0;
  double compute_s = 0;
  double comm_s = 0;
  double compression_s = 0;
  // The optimizer's per-tensor LAMB coefficients c_t and 1-bit LAMB ratios r_t
  // (OptimizerMetrics); empty for other optimizers. Not written to metrics.csv.
  std::vector<double> layer_coefficients;
  std::vector<double> layer_ratios;
  // What the optimizer told the user at this step (Optimizer::take_notes, rank 0's), e.g. a
  // hazard found at the freeze. Not written to metrics.csv.
  std::vector<std::string> notes;
};

// metrics.csv, the whole file: header and one row per record (step, samples, epoch, stage, lr,
// train_loss, test_loss, test_accuracy, var_norm_l2, var_ratio_l1, bytes_sent,
// bytes_sent_inter_node, time_s, step_wall_s, compute_s, comm_s, compression_s; empty cells for
// absent values).
std::string metrics_csv(const std::vector<StepRecord>& records);

}  // namespace compopt
