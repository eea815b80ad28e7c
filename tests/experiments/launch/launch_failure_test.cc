// The launcher's verdict on a failed launch: the first rank to fail, and the ranks the
// others' last error lines blame (messages as the TCP backend writes them).

#include "experiments/launch/launch_failure.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <string>

namespace compopt::cli {
namespace {

// waitpid() statuses in the Linux encoding: exit code in bits 8..15, a signal in bits 0..6.
constexpr int exited(int code) { return code << 8; }
constexpr int killed(int signal) { return signal; }

TEST(LaunchFailure, StatusesAreDescribed) {
  static_assert(exited(3) == 0x300);
  ASSERT_TRUE(WIFEXITED(exited(3)));
  ASSERT_TRUE(WIFSIGNALED(killed(SIGKILL)));
  EXPECT_EQ(describe_status(exited(3)), "exited with code 3");
  EXPECT_EQ(describe_status(killed(SIGKILL)), "was killed by signal 9 (Killed)");
  EXPECT_FALSE(failed_status(exited(0)));
  EXPECT_TRUE(failed_status(exited(1)));
  EXPECT_TRUE(failed_status(killed(SIGTERM)));
}

TEST(LaunchFailure, NamedRankIsTheLastOtherRankInTheMessage) {
  EXPECT_EQ(named_rank("compopt: failed: rank 0: lost connection to rank 3 (Connection reset by "
                       "peer) without a goodbye: rank 3 died or was killed",
                       0, 4),
            3);
  // A peer's failure passed on: the innermost cause comes last.
  EXPECT_EQ(
      named_rank("rank 1: peer rank 2 failed: rank 2: nothing heard from rank 0 for 8.0 s", 1, 4),
      0);
  EXPECT_EQ(named_rank("rank 2: rendezvous with rank 0 at 127.0.0.1:5 timed out", 2, 4), 0);
  EXPECT_EQ(named_rank("rank 2: bad input", 2, 4), -1) << "only its own rank";
  EXPECT_EQ(named_rank("no ranks 1, 2 here; frank 1; rank 9 is outside", 0, 4), -1);
  EXPECT_EQ(named_rank("", 0, 4), -1);
}

TEST(LaunchFailure, SummaryNamesTheFirstFailureAndWhomTheOthersBlame) {
  const std::vector<RankEnd> failures{
      {.rank = 3, .status = killed(SIGKILL), .last_error = "[some progress line]"},
      {.rank = 1, .status = exited(1), .last_error = "rank 1: lost connection to rank 3"},
      {.rank = 0, .status = exited(1), .last_error = "rank 0: truncated frame from rank 3"}};
  EXPECT_EQ(failure_summary(failures, 4),
            "rank 3 was killed by signal 9 (Killed), the first rank to fail; the errors of "
            "ranks 1, 0 name rank 3");
}

TEST(LaunchFailure, KilledRankReapedAfterItsPeerIsStillTheRootCause) {
  // The peer saw rank 3's sockets close and exited before rank 3's teardown ended.
  const std::vector<RankEnd> failures{
      {.rank = 1, .status = exited(1), .last_error = "rank 1: lost connection to rank 3"},
      {.rank = 3, .status = killed(SIGKILL), .last_error = "progress at rank 1"},
      {.rank = 0, .status = exited(1), .last_error = "rank 0: truncated frame from rank 3"}};
  EXPECT_EQ(root_cause(failures, 4), 1u) << "a killed rank's own lines are not followed";
  EXPECT_EQ(failure_summary(failures, 4),
            "rank 3 was killed by signal 9 (Killed), the cause named by the first rank to fail, "
            "rank 1 (exited with code 1); the errors of ranks 1, 0 name rank 3");
}

TEST(LaunchFailure, BlameIsFollowedThroughPassedOnFailures) {
  const std::vector<RankEnd> failures{
      {.rank = 0, .status = exited(1), .last_error = "rank 0: peer rank 2 failed: rank 2: boom"},
      {.rank = 2, .status = exited(1), .last_error = "rank 2: boom"},
      {.rank = 1, .status = exited(1), .last_error = "rank 1: peer rank 0 failed"}};
  EXPECT_EQ(root_cause(failures, 3), 1u);
  // Blame that loops ends where it started.
  const std::vector<RankEnd> loop{
      {.rank = 0, .status = exited(1), .last_error = "rank 0: lost rank 1"},
      {.rank = 1, .status = exited(1), .last_error = "rank 1: lost rank 0"}};
  EXPECT_EQ(root_cause(loop, 2), 1u);
}

TEST(LaunchFailure, SummaryOfANoticingRankPointsAtTheBlamedOne) {
  // Rank 5 hung (on another node, say): rank 0 noticed first and names it.
  const std::vector<RankEnd> failures{
      {.rank = 0, .status = exited(1), .last_error = "rank 0: nothing heard from rank 5"},
      {.rank = 2, .status = exited(1), .last_error = "rank 2: peer rank 0 failed"}};
  EXPECT_EQ(failure_summary(failures, 8),
            "rank 0 exited with code 1, the first rank to fail; the error of rank 0 names rank "
            "5; the error of rank 2 names rank 0");
}

}  // namespace
}  // namespace compopt::cli
