#pragma once
// The data-parallel training loop of one rank (backend-agnostic: it only sees a
// Communicator). Every rank of the group calls train_rank with the same task,
// options and an optimizer of the same configuration.
//
// Per step: draw this rank's batch (ShardSampler), loss and gradient from the
// task, check the gradient is finite, optimizer.step, average the train loss
// over ranks, and every eval_every steps (0: end of each epoch; always after
// the last step) evaluate the test set split over ranks. The metric
// collectives (loss/eval allreduce, an allgather of every rank's byte counts)
// run under the traffic label kMetricsTrafficLabel and are excluded from
// StepRecord::bytes_sent*, which count the optimizer's traffic only.
//
// The measured wall time of each loss/gradient computation is charged with
// comm.advance(): on the simulator the clock then shows real compute plus
// simulated communication (time-wise curves); on other backends it is a no-op.
//
// Global batch = ranks x batch_per_rank. Parameters start from
// task.init_params(seed) on every rank. A non-finite gradient or loss throws
// NonFiniteGradient naming the step and the rank (other ranks then fail with a
// CommError on their next collective; LocalWorld::run rethrows the root cause).

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/comm/communicator.h"
#include "core/optim/optimizer.h"
#include "core/tasks/task.h"
#include "core/train/step_record.h"

namespace compopt {

inline constexpr const char* kMetricsTrafficLabel = "train_metrics";

class NonFiniteGradient : public std::runtime_error {
 public:
  explicit NonFiniteGradient(const std::string& what) : std::runtime_error(what) {}
};

struct TrainOptions {
  size_t batch_per_rank = 32;
  int64_t steps = 1;       // total optimizer steps, >= 1
  int64_t eval_every = 0;  // steps between test evaluations; 0: once per epoch
  uint64_t seed = 1;       // initial parameters and data order
};

struct TrainHooks {
  // Rank 0, after every step.
  std::function<void(const StepRecord&)> on_record;
  // Every rank, after every step, with that rank's parameters.
  std::function<void(int rank, int64_t step, std::span<const float> params)> after_step;
};

// Runs options.steps steps; returns this rank's final parameters.
// Throws InvalidArgument for steps < 1, eval_every < 0, or a batch that does not
// fit a rank's shard; NonFiniteGradient as above.
std::vector<float> train_rank(Communicator& comm, const Task& task, Optimizer& optimizer,
                              const TrainOptions& options, const TrainHooks& hooks = {});

}  // namespace compopt
