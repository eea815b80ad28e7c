#include "experiments/scenario/forked_jobs.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

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

// Waits up to `seconds` for child `pid` to end; its wait status, or -1 if it still runs.
int wait_for(pid_t pid, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

// A caller killed mid-run (kill -9 of a sweep) takes its jobs with it. This test process is
// made the subreaper, so the orphaned job becomes its child and its end can be waited for.
TEST(ForkedJobs, AJobDiesWithItsCaller) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t caller = fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {  // the caller: one job that reports its pid, then works for a minute
    close(fds[0]);
    run_forked({.count = 1,
                .parallel = 1,
                .work =
                    [&](size_t) {
                      const pid_t me = getpid();
                      if (write(fds[1], &me, sizeof me) != sizeof me) _exit(3);
                      std::this_thread::sleep_for(std::chrono::seconds(60));
                      return std::string("done");
                    },
                .describe = describe});
    _exit(0);
  }
  close(fds[1]);
  pid_t job = 0;
  ASSERT_EQ(read(fds[0], &job, sizeof job), static_cast<ssize_t>(sizeof job));
  close(fds[0]);
  kill(caller, SIGKILL);
  ASSERT_EQ(wait_for(caller, 10), SIGKILL);  // WIFSIGNALED with SIGKILL: the status is 9
  const int status = wait_for(job, 10);
  if (status == -1) {
    kill(job, SIGKILL);
    wait_for(job, 10);
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_NE(status, -1) << "the job still ran 10 s after its caller was killed";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
}

TEST(ForkedJobs, ParallelJobsDefaultsToCores) {
  EXPECT_EQ(parallel_jobs(3), 3);
  EXPECT_GE(parallel_jobs(0), 1);
}

}  // namespace
}  // namespace compopt::cli
