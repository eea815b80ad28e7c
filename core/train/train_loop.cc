#include "core/train/train_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "core/comm/compression_clock.h"
#include "core/train/deferred_metrics.h"
#include "core/train/first_non_finite.h"
#include "core/train/shard_sampler.h"
#include "core/util/error.h"

namespace compopt {
namespace {

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
  if (options.metrics_every < 1) {
    throw InvalidArgument(fmt::format("metrics_every {}, expected >= 1", options.metrics_every));
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

// The rank-mean train loss of this step (the per-step collective).
float mean_loss(Communicator& comm, double loss) {
  float mean = static_cast<float>(loss);
  TrafficCounters::Scope scope(comm.traffic(), kMetricsTrafficLabel);
  comm.allreduce(std::span<float>(&mean, 1), ReduceOp::kMean);
  return mean;
}

// The test loss and accuracy over every rank's share [test_begin, test_end) of the test set.
void evaluate_test(Communicator& comm, TaskWorker& worker, const Task& task,
                   std::span<const float> params, std::array<size_t, 2> test_range,
                   StepRecord& record) {
  const EvalSums e = worker.evaluate(params, test_range[0], test_range[1]);
  std::array<float, 3> sums = {static_cast<float>(e.loss_sum), static_cast<float>(e.correct),
                               static_cast<float>(e.count)};
  TrafficCounters::Scope scope(comm.traffic(), kMetricsTrafficLabel);
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

// Fills the record's step, progress and optimizer metrics.
void complete_record(StepRecord& record, int64_t step, int ranks, const TrainOptions& options,
                     int64_t steps_per_epoch, const OptimizerMetrics& m, double elapsed) {
  record.step = step;
  record.samples = step * ranks * static_cast<int64_t>(options.batch_per_rank);
  record.epoch = static_cast<double>(step) / static_cast<double>(steps_per_epoch);
  record.lr = m.lr;
  record.var_norm_l2 = m.variance_norm;
  record.var_ratio_l1 = m.variance_ratio;
  record.var_norm_l1 = m.variance_l1;
  record.layer_coefficients = m.layer_coefficients;
  record.layer_ratios = m.layer_ratios;
  record.time_s = elapsed;
}

// The step's metric collectives, with `evaluate` (when set) run among them: per step (the loss
// allreduce, the evaluation, the byte counters' allgather) unless `batched`, then the evaluation
// and, when `flush`, one allgather of the steps since the last flush. Returns the rank means of
// the steps they complete, in step order (none between flushes).
std::vector<StepMeans> metric_collectives(Communicator& comm, bool batched, bool flush,
                                          DeferredMetrics& deferred, double loss,
                                          const std::array<uint64_t, 2>& mine,
                                          const std::function<void()>& evaluate) {
  if (batched) {
    if (evaluate) evaluate();
    deferred.add(static_cast<float>(loss), mine);
    return flush ? deferred.flush(comm) : std::vector<StepMeans>{};
  }
  const float train_loss = mean_loss(comm, loss);
  if (evaluate) evaluate();
  return {step_means(train_loss, gather_sent(comm, mine))};
}

// Rank 0's records wait in `pending` for their rank means, which come in step order: once
// `means` has them, each is completed and handed to on_record.
void deliver(std::vector<StepRecord>& pending, std::span<const StepMeans> means,
             const std::function<void(const StepRecord&)>& on_record) {
  if (means.empty()) return;
  if (means.size() != pending.size()) {
    throw std::logic_error(
        fmt::format("train loop: {} step means for {} records", means.size(), pending.size()));
  }
  for (size_t i = 0; i < means.size(); ++i) {
    pending[i].train_loss = means[i].train_loss;
    pending[i].bytes_sent = means[i].bytes_sent;
    pending[i].bytes_sent_inter_node = means[i].bytes_sent_inter_node;
    on_record(pending[i]);
  }
  pending.clear();
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

// On a simulated clock the split is given in simulated seconds: the compute and compression
// charged to the clock before the optimizer step, and the simulated time of the optimizer
// step itself (`optimizer_s`: its collectives).
void split_in_simulated_time(StepRecord& record, const TrainOptions& options, Stage stage,
                             double measured_s, double optimizer_s) {
  const bool compresses = options.compute && stage == Stage::kCompression;
  record.compression_s = compresses ? options.compute->compression_s : 0.0;
  record.compute_s = charged_seconds(options, stage, measured_s) - record.compression_s;
  record.comm_s = optimizer_s;
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
  const bool records = rank == 0 && hooks.on_record != nullptr;
  const bool batched = options.metrics_every > 1;
  DeferredMetrics deferred;
  std::vector<StepRecord> pending;  // rank 0's records waiting for their rank means
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
    const double optimizer_start = comm.now();
    timed_optimizer_step(optimizer, params, grads, comm, record);
    if (options.simulated_clock) {
      split_in_simulated_time(record, options, stage, measured_s, comm.now() - optimizer_start);
    }
    record.notes = optimizer.take_notes();
    if (records && hooks.on_note) {
      for (const std::string& note : record.notes) hooks.on_note(step, note);
    }
    // Only rank 0 records them (every rank's optimizer state is the same).
    OptimizerMetrics m;
    if (records) m = optimizer.metrics();
    const bool evaluate = step % eval_every == 0 || step == options.steps;
    const bool checkpoint = options.checkpoint_every > 0 &&
                            (step % options.checkpoint_every == 0 || step == options.steps);
    const TrafficTally sent = traffic.since_start();
    const std::array<uint64_t, 2> mine = {begin.sent_before[0] + sent.bytes,
                                          begin.sent_before[1] + sent.inter_node_bytes};
    const std::vector<StepMeans> means = metric_collectives(
        comm, batched, evaluate || checkpoint || step % options.metrics_every == 0, deferred, loss,
        mine,
        evaluate ? std::function<void()>(
                       [&] { evaluate_test(comm, *worker, task, params, test_range, record); })
                 : nullptr);
    const double elapsed = comm.now() - start;
    record.step_wall_s = seconds_since(step_start);
    if (hooks.after_step) hooks.after_step(rank, step, params);
    if (records) {
      complete_record(record, step, ranks, options, steps_per_epoch, m, elapsed);
      pending.push_back(std::move(record));
      deliver(pending, means, hooks.on_record);
    }
    if (checkpoint && hooks.on_checkpoint) {
      hooks.on_checkpoint(rank, checkpoint_of(step, params, optimizer, sampler, mine, elapsed));
    }
  }
  return std::move(params);
}

}  // namespace compopt
