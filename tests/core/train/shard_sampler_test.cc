#include "core/train/shard_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/util/error.h"

namespace compopt {
namespace {

TEST(ShardSampler, ShardsAreDisjointEqualAndSeeded) {
  std::set<size_t> seen;
  for (int r = 0; r < 4; ++r) {
    ShardSampler s(103, 4, r, 5, 7);
    EXPECT_EQ(s.shard().size(), 25u);
    EXPECT_EQ(s.steps_per_epoch(), 5u);
    for (const size_t k : s.shard()) EXPECT_TRUE(seen.insert(k).second) << k;
    EXPECT_EQ(s.shard(), ShardSampler(103, 4, r, 5, 7).shard());
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_NE(ShardSampler(103, 4, 0, 5, 7).shard(), ShardSampler(103, 4, 0, 5, 8).shard());
  EXPECT_EQ(ShardSampler::steps_per_epoch(60000, 16, 32), 117u);
}

TEST(ShardSampler, EpochsVisitTheShardOnceInNewOrders) {
  ShardSampler s(40, 2, 1, 4, 3);
  std::vector<size_t> epoch0, epoch1;
  for (int i = 0; i < 5; ++i) {
    auto b = s.next();
    ASSERT_EQ(b.size(), 4u);
    epoch0.insert(epoch0.end(), b.begin(), b.end());
  }
  EXPECT_EQ(s.epoch(), 0);
  for (int i = 0; i < 5; ++i) {
    auto b = s.next();
    epoch1.insert(epoch1.end(), b.begin(), b.end());
  }
  EXPECT_EQ(s.epoch(), 1);
  EXPECT_NE(epoch0, epoch1);
  auto sorted_shard = s.shard();
  std::sort(sorted_shard.begin(), sorted_shard.end());
  std::sort(epoch0.begin(), epoch0.end());
  std::sort(epoch1.begin(), epoch1.end());
  EXPECT_EQ(epoch0, sorted_shard);
  EXPECT_EQ(epoch1, sorted_shard);
}

TEST(ShardSampler, RejectsBatchLargerThanShard) {
  EXPECT_THROW(ShardSampler(10, 4, 0, 3, 1), InvalidArgument);
  EXPECT_THROW(ShardSampler(10, 2, 2, 1, 1), InvalidArgument);
}

TEST(ShardSampler, SeekContinuesExactlyWhereThePositionWasTaken) {
  // Shard of 25 examples, 6 batches of 4 per epoch (the last example is dropped).
  ShardSampler a(103, 4, 2, 4, 11);
  std::vector<std::vector<size_t>> draws;
  std::vector<ShardSampler::Position> positions = {a.position()};
  for (int i = 0; i < 13; ++i) {
    const auto b = a.next();
    draws.emplace_back(b.begin(), b.end());
    positions.push_back(a.position());
  }
  EXPECT_EQ(positions[0], (ShardSampler::Position{-1, 0}));
  EXPECT_EQ(positions[1], (ShardSampler::Position{0, 4}));
  EXPECT_EQ(positions[6], (ShardSampler::Position{0, 24}));  // end of epoch 0
  EXPECT_EQ(positions[7], (ShardSampler::Position{1, 4}));
  EXPECT_EQ(positions[13], (ShardSampler::Position{2, 4}));
  for (size_t k = 0; k < positions.size() - 1; ++k) {
    ShardSampler b(103, 4, 2, 4, 11);
    b.seek(positions[k]);
    EXPECT_EQ(b.position(), positions[k]);
    for (size_t i = k; i < draws.size(); ++i) {
      const auto batch = b.next();
      ASSERT_EQ(std::vector<size_t>(batch.begin(), batch.end()), draws[i])
          << "seek to draw " << k << ", draw " << i;
    }
  }
}

TEST(ShardSampler, SeekRejectsPositionsOffBatchBoundaries) {
  ShardSampler s(103, 4, 0, 4, 1);
  EXPECT_THROW(s.seek({0, 3}), InvalidArgument);   // not a whole batch
  EXPECT_THROW(s.seek({0, 28}), InvalidArgument);  // past the 6 batches of an epoch
  EXPECT_THROW(s.seek({-1, 4}), InvalidArgument);  // offset before the first epoch
  EXPECT_THROW(s.seek({-2, 0}), InvalidArgument);
  EXPECT_NO_THROW(s.seek({3, 24}));
}

}  // namespace
}  // namespace compopt
