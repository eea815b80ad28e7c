#include "experiments/scenario/forked_jobs.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

std::string describe(size_t i) { return "job " + std::to_string(i); }

TEST(ForkedJobs, ResultsComeBackInJobOrder) {
  std::vector<size_t> finished;
  const auto out = run_forked({.count = 7,
                               .parallel = 3,
                               .work = [](size_t i) { return std::string(i + 1, 'a' + i); },
                               .describe = describe,
                               .on_done = [&](size_t i) { finished.push_back(i); }});
  ASSERT_EQ(out.size(), 7u);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(out[i], std::string(i + 1, 'a' + i));
  EXPECT_EQ(finished.size(), 7u);
}

// More than a pipe's buffer (64 KiB): the parent must read while the child writes.
TEST(ForkedJobs, LargeResultsDoNotDeadlock) {
  const auto out = run_forked({.count = 2,
                               .parallel = 2,
                               .work = [](size_t i) { return std::string(3'000'000 + i, 'x'); },
                               .describe = describe});
  EXPECT_EQ(out[0].size(), 3'000'000u);
  EXPECT_EQ(out[1].size(), 3'000'001u);
}

TEST(ForkedJobs, ZeroJobsIsEmpty) {
  EXPECT_TRUE(run_forked({.count = 0, .parallel = 2, .work = {}, .describe = describe}).empty());
}

TEST(ForkedJobs, ThrowingJobNamesItselfAndItsMessage) {
  try {
    run_forked({.count = 4,
                .parallel = 1,
                .work = [](size_t i) -> std::string {
                  if (i == 2) throw std::runtime_error("bad bandwidth 0");
                  return "ok";
                },
                .describe = describe});
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("job 2 failed: bad bandwidth 0"), std::string::npos)
        << e.what();
  }
}

// An InvalidArgument in the child (bad input found only there, e.g. a platform file the
// simulator refuses) is one in the parent too, so that callers report it as bad input.
TEST(ForkedJobs, InvalidArgumentInAJobIsInvalidArgumentInTheParent) {
  const auto work = [](size_t i) -> std::string {
    if (i == 1) throw InvalidArgument("gpus = 7, expected a multiple of 4");
    return "ok";
  };
  try {
    run_forked({.count = 3, .parallel = 1, .work = work, .describe = describe});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()), "job 1 failed: gpus = 7, expected a multiple of 4");
  }
}

TEST(ForkedJobs, CrashingJobIsReportedWithItsSignal) {
  try {
    run_forked({.count = 2,
                .parallel = 2,
                .work = [](size_t i) -> std::string {
                  if (i == 1) std::abort();
                  return "ok";
                },
                .describe = describe});
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("job 1 failed: killed by signal 6"), std::string::npos)
        << e.what();
  }
}

TEST(ForkedJobs, ParallelJobsDefaultsToCores) {
  EXPECT_EQ(parallel_jobs(3), 3);
  EXPECT_GE(parallel_jobs(0), 1);
}

}  // namespace
}  // namespace compopt::cli
