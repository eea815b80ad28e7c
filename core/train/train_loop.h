#pragma once
// The data-parallel training loop of one rank (backend-agnostic: it only sees a
// Communicator). Every rank of the group calls train_rank with the same task,
// options and an optimizer of the same configuration.
//
// Per step: draw this rank's batch (ShardSampler), loss and gradient from the
// task, check the gradient is finite, optimizer.step, average the train loss
// over ranks, and every eval_every steps (0: end of each epoch; always after
// the last step) evaluate the test set split over ranks. The metric
// collectives (loss/eval allreduce, an allgather of every rank's byte counts;
// batched over TrainOptions::metrics_every steps) run under the traffic label
// kMetricsTrafficLabel and are excluded from StepRecord::bytes_sent*, which
// count the optimizer's traffic only.
//
// Each step's local work is charged with comm.advance() before the optimizer
// step: the modeled seconds of options.compute (ComputeCharge: forward and
// backward, optimizer step, compression in compression-stage steps), or, when
// unset, the measured wall time of the loss/gradient computation. On the
// simulator the clock then shows compute plus simulated communication
// (time-wise curves; reproducible only with a modeled charge); on other
// backends advance() is a no-op.
//
// Every step is also timed on the host's wall clock (StepRecord::step_wall_s,
// compute_s, comm_s, compression_s): the forward/backward pass, and the
// optimizer step split into the compressed allreduces' encode/decode work
// (core/comm/compression_clock.h) and the rest. These never feed back into the
// math or the simulated clock.
//
// Global batch = ranks x batch_per_rank. A non-finite gradient or loss throws
// NonFiniteGradient naming the step and the rank (other ranks then fail with a
// CommError on their next collective; LocalWorld::run rethrows the root cause).
//
// Parameters start from task.init_params(seed) on every rank, or from a
// RankCheckpoint (resume):
// parameters, optimizer state, data position, byte counters and clock offset
// are restored and the loop continues with step resume->step + 1, producing the
// same records, parameters and traffic as an uninterrupted run (except that an
// optimizer which builds sub-communicators at its first step, as
// birder-hierarchical does, sends that setup traffic again). On the
// simulator the rank's clock is first advanced by the saved offset, so with a
// modeled compute charge (options.compute) time_s is identical too.
// Checkpoints: with checkpoint_every = K > 0 every rank hands a RankCheckpoint
// to hooks.on_checkpoint after steps K, 2K, ... and after the last step (after
// rank 0's on_record of that step). Taking one uses no communication, so it
// changes neither the traffic nor the simulated time.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/comm/communicator.h"
#include "core/optim/optimizer.h"
#include "core/tasks/task.h"
#include "core/train/checkpoint.h"
#include "core/train/step_record.h"

namespace compopt {

inline constexpr const char* kMetricsTrafficLabel = "train_metrics";

class NonFiniteGradient : public std::runtime_error {
 public:
  explicit NonFiniteGradient(const std::string& what) : std::runtime_error(what) {}
};

// Modeled seconds of one rank's local work per step (all finite and >= 0).
struct ComputeCharge {
  double pass_s = 0;         // forward + backward of the rank's batch
  double step_s = 0;         // the optimizer step
  double compression_s = 0;  // encode + decode, added in steps of Stage::kCompression
};

struct TrainOptions {
  size_t batch_per_rank = 32;
  int64_t steps = 1;             // total optimizer steps, >= 1
  int64_t eval_every = 0;        // steps between test evaluations; 0: once per epoch
  uint64_t seed = 1;             // initial parameters and data order
  int64_t checkpoint_every = 0;  // 0: no checkpoints
  // Steps between the metric collectives (>= 1). 1: after every step, the train loss
  // allreduce and an allgather of every rank's byte counters. K > 1: one allgather of the
  // losses and counters of the steps since the last one, after steps K, 2K, ..., evaluation
  // and checkpoint steps and the last step; rank 0's on_record then gets those steps' records,
  // with the values per-step collectives give (DeferredMetrics). Fewer synchronizations per
  // step; on a simulated clock, which charges the collectives, time_s differs between the two.
  int64_t metrics_every = 1;
  // The communicator's clock is simulated (the sim backend): StepRecord's compute_s, comm_s and
  // compression_s are then simulated seconds instead of this host's wall clock.
  bool simulated_clock = false;
  // Seconds charged with comm.advance() per step; unset: the measured wall time
  // of the loss/gradient computation (not reproducible run to run).
  std::optional<ComputeCharge> compute = std::nullopt;
};

struct TrainHooks {
  // Rank 0, after every step (metrics_every > 1: after the step that gathers its metrics).
  std::function<void(const StepRecord&)> on_record;
  // Rank 0 (with on_record set), at the step itself: each note the optimizer took at that step
  // (Optimizer::take_notes), before a later failure can lose the not yet delivered records.
  std::function<void(int64_t step, const std::string& note)> on_note;
  // Every rank, after every step, with that rank's parameters.
  std::function<void(int rank, int64_t step, std::span<const float> params)> after_step;
  // Every rank, before each optimizer step, with the stage that step runs in
  // (e.g. to change how a simulated wire charges the step's messages).
  std::function<void(Communicator& comm, Stage stage)> before_step;
  // Every rank, at checkpoint steps (see checkpoint_every), on its own thread.
  std::function<void(int rank, RankCheckpoint&& state)> on_checkpoint;
};

// Runs steps 1..options.steps (resume: resume->step + 1..options.steps);
// returns this rank's final parameters. Throws InvalidArgument for steps < 1,
// eval_every < 0, checkpoint_every < 0, a negative or non-finite
// ComputeCharge field, a batch that does not fit a rank's shard, or a resume state
// that does not fit (check_resume_state); NonFiniteGradient as above.
std::vector<float> train_rank(Communicator& comm, const Task& task, Optimizer& optimizer,
                              const TrainOptions& options, const TrainHooks& hooks = {},
                              const RankCheckpoint* resume = nullptr);

// Throws InvalidArgument unless `state` can continue a run of `options` on
// this task with this (freshly built) optimizer: step in [1, options.steps),
// parameter count, the optimizer's own state checks (Optimizer::load_state:
// another optimizer, seed, sizes), and a data position that matches the step.
// Loads the state into `optimizer`.
void check_resume_state(const RankCheckpoint& state, const Task& task, Optimizer& optimizer,
                        const TrainOptions& options, int ranks, int rank);

}  // namespace compopt
