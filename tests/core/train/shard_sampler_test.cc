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

}  // namespace
}  // namespace compopt
