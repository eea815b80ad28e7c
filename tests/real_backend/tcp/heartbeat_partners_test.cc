// Heartbeat partners: all pairs in small worlds, ring distances 2^k beyond; symmetric,
// never oneself, always the two ring neighbours.

#include "real_backend/heartbeat_partners.h"

#include <gmock/gmock.h>

namespace compopt {
namespace {

int partner_count(int rank, int world) {
  int count = 0;
  for (int p = 0; p < world; ++p) count += heartbeat_partners(rank, p, world) ? 1 : 0;
  return count;
}

TEST(HeartbeatPartnersTest, SmallWorldsWatchEveryPair) {
  for (int world = 1; world <= kAllPairsHeartbeatRanks; ++world)
    for (int r = 0; r < world; ++r) EXPECT_EQ(partner_count(r, world), world - 1) << world;
}

TEST(HeartbeatPartnersTest, At256RanksEachRankHas15Partners) {
  // Distances 1, 2, 4, ..., 128 and their complements 255, 254, 252, ..., 192 (128 twice).
  for (int r : {0, 1, 100, 255}) EXPECT_EQ(partner_count(r, 256), 15) << r;
  EXPECT_TRUE(heartbeat_partners(10, 11, 256));
  EXPECT_TRUE(heartbeat_partners(10, 9, 256));
  EXPECT_TRUE(heartbeat_partners(0, 128, 256));
  EXPECT_TRUE(heartbeat_partners(0, 192, 256));  // distance 256 - 192 = 64
  EXPECT_FALSE(heartbeat_partners(0, 3, 256));
  EXPECT_FALSE(heartbeat_partners(0, 100, 256));
}

TEST(HeartbeatPartnersTest, SymmetricWithRingNeighboursAndNeverSelf) {
  for (int world : {17, 20, 96, 255, 256, 1000}) {
    for (int r = 0; r < world; ++r) {
      EXPECT_FALSE(heartbeat_partners(r, r, world));
      EXPECT_TRUE(heartbeat_partners(r, (r + 1) % world, world));
      EXPECT_TRUE(heartbeat_partners(r, (r + world - 1) % world, world));
      for (int p = 0; p < world; p += 7)
        EXPECT_EQ(heartbeat_partners(r, p, world), heartbeat_partners(p, r, world));
    }
  }
}

}  // namespace
}  // namespace compopt
