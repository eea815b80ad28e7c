// Checkpoints of ranks in separate processes: gather_rank_checkpoints delivers
// every rank's state to rank 0 intact, outside the optimizer byte counters, and
// train_with with ranks_in_processes writes the same checkpoints as the in-memory
// collector (run here on Local threads, where both paths can be compared).

#include "core/train/checkpoint_gather.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "core/tasks/logistic_regression.h"
#include "core/train/local_training.h"
#include "core/util/error.h"

namespace compopt {
namespace {

RankCheckpoint state_of(int rank) {
  RankCheckpoint s;
  s.step = 7;
  s.params = {1.5f, -0.0f, static_cast<float>(rank)};
  s.optimizer.put("m", std::vector<float>(4, 0.25f * static_cast<float>(rank)));
  s.optimizer.put_scalar("step", 7);
  s.sampler = {2, static_cast<size_t>(16 * rank)};
  s.bytes_sent = 100 + static_cast<uint64_t>(rank);
  s.bytes_sent_inter_node = static_cast<uint64_t>(rank);
  s.clock_s = 0.5 * rank;
  return s;
}

TEST(CheckpointGather, RankZeroReceivesEveryStateOutsideTheByteCounters) {
  std::vector<RankCheckpoint> on_zero;
  std::mutex mutex;
  run_local(3, [&](Communicator& comm) {
    std::vector<RankCheckpoint> got = gather_rank_checkpoints(comm, state_of(comm.rank()));
    const TrafficTally optimizer = comm.traffic().total() - comm.traffic().of(kMetricsTrafficLabel);
    EXPECT_EQ(optimizer.bytes, 0u) << "rank " << comm.rank();
    if (comm.rank() != 0) {
      EXPECT_TRUE(got.empty());
      EXPECT_GT(comm.traffic().of(kMetricsTrafficLabel).bytes, 0u);
      return;
    }
    const std::lock_guard lock(mutex);
    on_zero = std::move(got);
  });
  ASSERT_EQ(on_zero.size(), 3u);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(on_zero[static_cast<size_t>(r)], state_of(r)) << r;
}

TEST(CheckpointGather, AStateOfAnotherStepIsRefusedOnRankZero) {
  EXPECT_THAT(
      [] {
        run_local(2, [](Communicator& comm) {
          RankCheckpoint s = state_of(comm.rank());
          if (comm.rank() == 1) s.step = 6;
          gather_rank_checkpoints(comm, std::move(s));
        });
      },
      ::testing::ThrowsMessage<InvalidArgument>(
          ::testing::HasSubstr("rank 1 sent its state of step 6, expected 7")));
}

// Every checkpoint train_with hands to `write`, with ranks in processes or not.
std::vector<Checkpoint> checkpoints_of(bool ranks_in_processes) {
  const LogisticRegressionTask task({.dimension = 12, .train_size = 512, .test_size = 32});
  const OptimizerFactory factory = [](const ParamLayout& layout) {
    return make_optimizer("onebit-adam", {{"freeze_step", "2"}, {"lr", "0.05"}}, layout);
  };
  std::vector<Checkpoint> out;
  CheckpointOptions checkpoints;
  checkpoints.write = [&](Checkpoint& c) { out.push_back(c); };
  checkpoints.ranks_in_processes = ranks_in_processes;
  train_local(task, factory, {.batch_per_rank = 8, .steps = 6, .seed = 4, .checkpoint_every = 3},
              {.ranks = 3}, {}, checkpoints);
  return out;
}

TEST(CheckpointGather, TrainingWritesTheSameCheckpointsAsTheInMemoryCollector) {
  const std::vector<Checkpoint> in_memory = checkpoints_of(false);
  const std::vector<Checkpoint> gathered = checkpoints_of(true);
  ASSERT_EQ(in_memory.size(), 2u);
  ASSERT_EQ(gathered.size(), in_memory.size());
  for (size_t i = 0; i < gathered.size(); ++i) {
    EXPECT_EQ(gathered[i].step, in_memory[i].step);
    // clock_s is the wall clock on Local: everything else must agree.
    std::vector<RankCheckpoint> a = gathered[i].ranks, b = in_memory[i].ranks;
    for (auto* side : {&a, &b}) {
      for (RankCheckpoint& r : *side) r.clock_s = 0;
    }
    EXPECT_EQ(a, b);
    ASSERT_EQ(gathered[i].records.size(), in_memory[i].records.size());
    // The gather's messages are not optimizer traffic: byte counts agree.
    EXPECT_EQ(gathered[i].records.back().bytes_sent, in_memory[i].records.back().bytes_sent);
  }
  EXPECT_EQ(gathered.back().step, 6);
}

TEST(RankStateCodec, RoundTripsAndRefusesTrailingBytes) {
  const RankCheckpoint s = state_of(2);
  std::vector<std::byte> bytes = encode_rank_state(s);
  EXPECT_EQ(decode_rank_state(bytes, "mem"), s);
  bytes.push_back(std::byte{0});
  EXPECT_THAT([&] { decode_rank_state(bytes, "rank 2's state"); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("trailing bytes")));
  bytes.resize(5);
  EXPECT_THROW(decode_rank_state(bytes, "short"), InvalidArgument);
}

}  // namespace
}  // namespace compopt
