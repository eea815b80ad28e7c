#include "core/train/train_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include "core/comm/compression_clock.h"
#include "core/train/shard_sampler.h"
#include "core/util/error.h"

namespace compopt {
namespace {

// Index of the first non-finite element, or -1.
std::ptrdiff_t first_non_finite(std::span<const float> x) {
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

std::string tensor_of(const ParamLayout& layout, size_t element) {
  for (const auto& t : layout.tensors()) {
    if (element >= t.offset && element < t.offset + t.size) return t.name;
  }
  return "?";
}

class OptimizerTraffic {
 public:
  explicit OptimizerTraffic(const TrafficCounters& counters)
      : counters_(counters), base_(current()) {}
  TrafficTally since_start() const { return current() - base_; }

 private:
  TrafficTally current() const { return counters_.total() - counters_.of(kMetricsTrafficLabel); }
  const TrafficCounters& counters_;
  TrafficTally base_;
};

ShardSampler::Position position_after(int64_t step, int64_t steps_per_epoch, size_t batch) {
  if (step == 0) return {};
  return {(step - 1) / steps_per_epoch,
          static_cast<size_t>((step - 1) % steps_per_epoch + 1) * batch};
}

void check_options(const TrainOptions& options) {
  if (options.steps < 1)
    throw InvalidArgument(fmt::format("steps {}, expected >= 1", options.steps));
  if (options.eval_every < 0) {
    throw InvalidArgument(fmt::format("eval_every {}, expected >= 0", options.eval_every));
  }
  if (options.checkpoint_every < 0) {
    throw InvalidArgument(
        fmt::format("checkpoint_every {}, expected >= 0 (0: none)", options.checkpoint_every));
  }
  if (!options.compute) return;
  for (const auto& [value, name] : {std::pair{options.compute->pass_s, "pass_s"},
                                    {options.compute->step_s, "step_s"},
                                    {options.compute->compression_s, "compression_s"}}) {
    if (!(std::isfinite(value) && value >= 0)) {
      throw InvalidArgument(
          fmt::format("compute charge {} = {}, expected a finite value >= 0", name, value));
    }
  }
}

// Seconds of local work a step charges to the clock: the modeled charge of
// options.compute, or the measured time of the loss/gradient computation.
double charged_seconds(const TrainOptions& options, Stage stage, double measured_s) {
  if (!options.compute) return measured_s;
  const ComputeCharge& c = *options.compute;
  return c.pass_s + c.step_s + (stage == Stage::kCompression ? c.compression_s : 0.0);
}

}  // namespace

void check_resume_state(const RankCheckpoint& state, const Task& task, Optimizer& optimizer,
                        const TrainOptions& options, int ranks, int rank) {
  if (state.step < 1 || state.step >= options.steps) {
    throw InvalidArgument(fmt::format(
        "resume from step {} of a run of {} steps: expected a step in [1, {}) (give more steps "
        "to continue a finished run)",
        state.step, options.steps, options.steps));
  }
  if (state.params.size() != task.layout().total()) {
    throw InvalidArgument(fmt::format("resume: rank {} has {} parameters, the task has {}", rank,
                                      state.params.size(), task.layout().total()));
  }
  try {
    optimizer.load_state(state.optimizer);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("resume: rank {}: {}", rank, e.what()));
  }
  if (optimizer.step_count() != state.step) {
    throw InvalidArgument(
        fmt::format("resume: rank {}: optimizer state at step {}, checkpoint at step {}", rank,
                    optimizer.step_count(), state.step));
  }
  const auto steps_per_epoch = static_cast<int64_t>(
      ShardSampler::steps_per_epoch(task.train_size(), ranks, options.batch_per_rank));
  if (steps_per_epoch < 1) {
    throw InvalidArgument(fmt::format("resume: per-rank batch {} does not fit a shard of {} ranks",
                                      options.batch_per_rank, ranks));
  }
  const ShardSampler::Position want =
      position_after(state.step, steps_per_epoch, options.batch_per_rank);
  if (!(state.sampler == want)) {
    throw InvalidArgument(fmt::format(
        "resume: rank {}: data position (epoch {}, offset {}) does not match step {} with {} "
        "steps per epoch of {} examples (expected epoch {}, offset {})",
        rank, state.sampler.epoch, state.sampler.offset, state.step, steps_per_epoch,
        options.batch_per_rank, want.epoch, want.offset));
  }
}

namespace {

// Where a rank's loop starts: fresh parameters at step 1, or a checkpoint's state.
struct StartPoint {
  std::vector<float> params;
  std::array<uint64_t, 2> sent_before = {0, 0};  // optimizer bytes of the steps before `first`
  int64_t first = 1;
  double clock_before = 0;
};

StartPoint start_point(Communicator& comm, const Task& task, Optimizer& optimizer,
                       const TrainOptions& options, const RankCheckpoint* resume,
                       ShardSampler& sampler) {
  StartPoint start;
  if (!resume) {
    start.params = task.init_params(options.seed);
    return start;
  }
  check_resume_state(*resume, task, optimizer, options, comm.size(), comm.rank());
  start.params = resume->params;
  sampler.seek(resume->sampler);
  start.sent_before = {resume->bytes_sent, resume->bytes_sent_inter_node};
  start.first = resume->step + 1;
  start.clock_before = resume->clock_s;
  // Simulated clocks resume where they stood (no-op on wall-clock backends).
  comm.advance(start.clock_before);
  return start;
}

struct LossAndTime {
  double loss = 0;
  double measured_s = 0;  // wall time of the computation
};

// One forward/backward pass and its wall time; throws on a non-finite loss or gradient.
LossAndTime loss_and_grad(const Communicator& comm, TaskWorker& worker, const ParamLayout& layout,
                          std::span<const float> params, std::span<const size_t> batch,
                          std::vector<float>& grads, int64_t step) {
  const auto compute_start = std::chrono::steady_clock::now();
  const double loss = worker.loss_and_grad(params, batch, grads);
  const double measured_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - compute_start).count();
  const std::ptrdiff_t bad = first_non_finite(grads);
  if (bad >= 0 || !std::isfinite(loss)) {
    throw NonFiniteGradient(
        bad >= 0 ? fmt::format("non-finite gradient at step {} on rank {}: element {} ({}) = {}, "
                               "train loss = {}",
                               step, comm.rank(), bad, tensor_of(layout, static_cast<size_t>(bad)),
                               grads[static_cast<size_t>(bad)], loss)
                 : fmt::format("non-finite loss at step {} on rank {}: train loss = {}", step,
                               comm.rank(), loss));
  }
  return {loss, measured_s};
}

// The rank-mean train loss and, when `evaluate`, the test loss and accuracy over
// every rank's share [test_begin, test_end) of the test set.
void reduce_losses(Communicator& comm, TaskWorker& worker, const Task& task,
                   std::span<const float> params, double loss, bool evaluate,
                   std::array<size_t, 2> test_range, StepRecord& record) {
  std::array<float, 3> sums = {static_cast<float>(loss), 0.0f, 0.0f};
  TrafficCounters::Scope scope(comm.traffic(), kMetricsTrafficLabel);
  comm.allreduce(std::span<float>(sums.data(), 1), ReduceOp::kMean);
  record.train_loss = sums[0];
  if (!evaluate) return;
  const EvalSums e = worker.evaluate(params, test_range[0], test_range[1]);
  sums = {static_cast<float>(e.loss_sum), static_cast<float>(e.correct),
          static_cast<float>(e.count)};
  comm.allreduce(sums, ReduceOp::kSum);
  if (sums[2] > 0) {
    record.test_loss = sums[0] / sums[2];
    if (task.has_accuracy()) record.test_accuracy = sums[1] / sums[2];
  }
}

// Every rank's optimizer traffic so far ({bytes, inter-node bytes} per rank).
std::vector<uint64_t> gather_sent(Communicator& comm, const std::array<uint64_t, 2>& mine) {
  std::vector<uint64_t> all_sent(2 * static_cast<size_t>(comm.size()));
  TrafficCounters::Scope scope(comm.traffic(), kMetricsTrafficLabel);
  comm.allgather(std::as_bytes(std::span<const uint64_t>(mine)),
                 std::as_writable_bytes(std::span<uint64_t>(all_sent)));
  return all_sent;
}

// Fills the record's step, progress, optimizer metrics and rank-mean traffic.
void complete_record(StepRecord& record, int64_t step, int ranks, const TrainOptions& options,
                     int64_t steps_per_epoch, const OptimizerMetrics& m,
                     std::span<const uint64_t> all_sent, double elapsed) {
  uint64_t bytes_sum = 0, inter_sum = 0;
  for (size_t r = 0; r < all_sent.size(); r += 2) {
    bytes_sum += all_sent[r];
    inter_sum += all_sent[r + 1];
  }
  record.step = step;
  record.samples = step * ranks * static_cast<int64_t>(options.batch_per_rank);
  record.epoch = static_cast<double>(step) / static_cast<double>(steps_per_epoch);
  record.lr = m.lr;
  record.var_norm_l2 = m.variance_norm;
  record.var_ratio_l1 = m.variance_ratio;
  record.var_norm_l1 = m.variance_l1;
  record.layer_coefficients = m.layer_coefficients;
  record.layer_ratios = m.layer_ratios;
  record.bytes_sent = static_cast<double>(bytes_sum) / ranks;
  record.bytes_sent_inter_node = static_cast<double>(inter_sum) / ranks;
  record.time_s = elapsed;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// optimizer.step with its measured wall time split into compression (the
// CompressionScopes of the compressed allreduces) and the rest (comm_s).
void timed_optimizer_step(Optimizer& optimizer, std::span<float> params,
                          std::span<const float> grads, Communicator& comm, StepRecord& record) {
  const auto start = std::chrono::steady_clock::now();
  const double compression_before = compression_seconds();
  optimizer.step(params, grads, comm);
  record.compression_s = compression_seconds() - compression_before;
  record.comm_s = std::max(0.0, seconds_since(start) - record.compression_s);
}

RankCheckpoint checkpoint_of(int64_t step, const std::vector<float>& params,
                             const Optimizer& optimizer, const ShardSampler& sampler,
                             const std::array<uint64_t, 2>& mine, double elapsed) {
  RankCheckpoint state;
  state.step = step;
  state.params = params;
  state.optimizer = optimizer.save_state();
  state.sampler = sampler.position();
  state.bytes_sent = mine[0];
  state.bytes_sent_inter_node = mine[1];
  state.clock_s = elapsed;
  return state;
}

}  // namespace

std::vector<float> train_rank(Communicator& comm, const Task& task, Optimizer& optimizer,
                              const TrainOptions& options, const TrainHooks& hooks,
                              const RankCheckpoint* resume) {
  check_options(options);
  const ParamLayout& layout = task.layout();
  if (optimizer.layout().total() != layout.total()) {
    throw InvalidArgument(fmt::format("optimizer has {} parameters, task has {}",
                                      optimizer.layout().total(), layout.total()));
  }
  const int rank = comm.rank();
  const int ranks = comm.size();
  ShardSampler sampler(task.train_size(), ranks, rank, options.batch_per_rank,
                       options.seed ^ 0x6a09e667f3bcc909ull);
  const auto steps_per_epoch = static_cast<int64_t>(sampler.steps_per_epoch());
  const int64_t eval_every = options.eval_every > 0 ? options.eval_every : steps_per_epoch;
  auto worker = task.make_worker(rank);
  StartPoint begin = start_point(comm, task, optimizer, options, resume, sampler);
  std::vector<float>& params = begin.params;
  std::vector<float> grads(layout.total());
  const size_t test_size = task.test_size();
  const std::array<size_t, 2> test_range = {
      test_size * static_cast<size_t>(rank) / static_cast<size_t>(ranks),
      test_size * static_cast<size_t>(rank + 1) / static_cast<size_t>(ranks)};

  OptimizerTraffic traffic(comm.traffic());
  const double start = comm.now() - begin.clock_before;
  for (int64_t step = begin.first; step <= options.steps; ++step) {
    const auto step_start = std::chrono::steady_clock::now();
    const auto batch = sampler.next();
    const auto [loss, measured_s] =
        loss_and_grad(comm, *worker, layout, params, batch, grads, step);
    const Stage stage = optimizer.stage();
    comm.advance(charged_seconds(options, stage, measured_s));
    if (hooks.before_step) hooks.before_step(comm, stage);
    StepRecord record;
    record.stage = stage_name(stage);
    record.compute_s = measured_s;
    timed_optimizer_step(optimizer, params, grads, comm, record);
    record.notes = optimizer.take_notes();
    const OptimizerMetrics m = optimizer.metrics();
    const bool evaluate = step % eval_every == 0 || step == options.steps;
    reduce_losses(comm, *worker, task, params, loss, evaluate, test_range, record);
    const TrafficTally sent = traffic.since_start();
    const std::array<uint64_t, 2> mine = {begin.sent_before[0] + sent.bytes,
                                          begin.sent_before[1] + sent.inter_node_bytes};
    const std::vector<uint64_t> all_sent = gather_sent(comm, mine);
    const double elapsed = comm.now() - start;
    record.step_wall_s = seconds_since(step_start);
    if (hooks.after_step) hooks.after_step(rank, step, params);
    if (rank == 0 && hooks.on_record) {
      complete_record(record, step, ranks, options, steps_per_epoch, m, all_sent, elapsed);
      hooks.on_record(record);
    }
    const bool checkpoint = options.checkpoint_every > 0 &&
                            (step % options.checkpoint_every == 0 || step == options.steps);
    if (checkpoint && hooks.on_checkpoint) {
      hooks.on_checkpoint(rank, checkpoint_of(step, params, optimizer, sampler, mine, elapsed));
    }
  }
  return std::move(params);
}

}  // namespace compopt
