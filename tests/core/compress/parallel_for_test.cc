// The kernels' thread pool: every task runs exactly once for any thread count, pool threads do
// take part, many concurrent callers (as 16 Local-backend ranks) and nested calls complete
// without deadlock, exceptions reach the caller and leave the pool usable, the caller's FP
// environment reaches the pool threads, a forked child gets a working pool, and COMPOPT_THREADS
// parsing.
#include "core/compress/parallel_for.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/util/error.h"

#if defined(__SANITIZE_THREAD__)
#define COMPOPT_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COMPOPT_UNDER_TSAN 1
#endif
#endif

namespace compopt {
namespace {

// Restores the thread count after a test.
class ThreadCountGuard {
 public:
  ThreadCountGuard() : saved_(thread_count()) {}
  ~ThreadCountGuard() { set_thread_count(saved_); }

 private:
  size_t saved_;
};

TEST(ParallelFor, EveryTaskRunsExactlyOnce) {
  ThreadCountGuard guard;
  for (const size_t threads : {1u, 2u, 3u, 8u}) {
    set_thread_count(threads);
    EXPECT_EQ(thread_count(), threads);
    for (const size_t tasks : {0u, 1u, 2u, 3u, 7u, 64u, 1000u}) {
      std::vector<std::atomic<int>> runs(tasks);
      parallel_for(tasks, [&](size_t i) { runs[i].fetch_add(1); });
      for (size_t i = 0; i < tasks; ++i) ASSERT_EQ(runs[i].load(), 1) << threads << " " << tasks;
    }
  }
}

TEST(ParallelFor, PoolThreadsTakePart) {
  ThreadCountGuard guard;
  set_thread_count(4);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  parallel_for(64, [&](size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard lock(mutex);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_GE(ids.size(), 2u);
  EXPECT_LE(ids.size(), 4u);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 1u) << "the caller works too";
}

TEST(ParallelFor, OneThreadRunsInlineInOrder) {
  ThreadCountGuard guard;
  set_thread_count(1);
  std::vector<size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  parallel_for(50, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);  // no lock needed: inline
  });
  ASSERT_EQ(order.size(), 50u);
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
}

TEST(ParallelFor, ManyConcurrentCallersAndNestedCallsComplete) {
  ThreadCountGuard guard;
  set_thread_count(3);
  constexpr int kCallers = 16, kRounds = 40;
  constexpr size_t kTasks = 37;
  std::vector<long> totals(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < kRounds; ++round) {
        std::vector<long> part(kTasks, 0);
        parallel_for(kTasks, [&](size_t i) {
          long inner = 0;
          std::vector<long> nested(4, 0);
          parallel_for(4, [&](size_t j) { nested[j] = static_cast<long>(i * j); });
          for (const long v : nested) inner += v;
          part[i] = static_cast<long>(i) + inner;
        });
        for (const long v : part) totals[static_cast<size_t>(c)] += v;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  // Per round: sum_i (i + i * (0 + 1 + 2 + 3)) = 7 * sum_i i = 7 * 36 * 37 / 2.
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(totals[static_cast<size_t>(c)], kRounds * 7L * 666);
}

TEST(ParallelFor, ExceptionReachesCallerAndPoolStaysUsable) {
  ThreadCountGuard guard;
  set_thread_count(3);
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(100,
                            [&](size_t i) {
                              ran.fetch_add(1);
                              if (i == 5) throw std::runtime_error("task 5 failed");
                            }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 1);
  std::atomic<int> after{0};
  parallel_for(100, [&](size_t) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 100);
}

TEST(ParallelFor, PoolThreadsUseTheCallersFloatingPointEnvironment) {
  ThreadCountGuard guard;
  set_thread_count(4);
  const int saved = std::fegetround();
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  std::vector<int> modes(64, -1);
  parallel_for(64, [&](size_t i) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    modes[i] = std::fegetround();
  });
  std::fesetround(saved);
  for (const int mode : modes) EXPECT_EQ(mode, FE_UPWARD);
}

TEST(ParallelFor, RangesCoverEverythingOnce) {
  ThreadCountGuard guard;
  set_thread_count(3);
  for (const size_t n : {0u, 1u, 100u, 65536u, 65537u, (1u << 18) - 1, (1u << 18) + 3}) {
    std::vector<std::atomic<int>> hits(n);
    std::atomic<size_t> ranges{0};
    parallel_for_ranges(n, 65536, [&](size_t index, size_t begin, size_t end) {
      EXPECT_EQ(begin, index * 65536);
      EXPECT_EQ(end, std::min(n, begin + 65536));
      for (size_t i = begin; i < end; ++i) hits[i].fetch_add(1);
      ranges.fetch_add(1);
    });
    EXPECT_EQ(ranges.load(), (n + 65535) / 65536) << n;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << n << " " << i;
  }
}

TEST(ParallelFor, ForkedChildGetsAWorkingPool) {
#ifdef COMPOPT_UNDER_TSAN
  GTEST_SKIP() << "TSan cannot start threads in a child forked from a multi-threaded process";
#endif
  ThreadCountGuard guard;
  set_thread_count(3);
  std::atomic<int> warm{0};
  parallel_for(10, [&](size_t) { warm.fetch_add(1); });  // the parent's pool exists
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a deadlock kills the child instead of hanging the test
    std::atomic<int> count{0};
    parallel_for(200, [&](size_t) { count.fetch_add(1); });
    _exit(count.load() == 200 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ParallelFor, ThreadCountFromEnvironment) {
  EXPECT_EQ(thread_count_from_env("3"), 3u);
  EXPECT_EQ(thread_count_from_env("256"), 256u);
  EXPECT_GE(thread_count_from_env(nullptr), 1u);
  EXPECT_EQ(thread_count_from_env(""), thread_count_from_env(nullptr));
  for (const char* bad : {"0", "257", "abc", "4x", "-1", " 2"}) {
    try {
      thread_count_from_env(bad);
      FAIL() << "COMPOPT_THREADS=" << bad << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + bad + "\""), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("1..256"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(set_thread_count(0), InvalidArgument);
  EXPECT_THROW(set_thread_count(kMaxThreads + 1), InvalidArgument);
}

// Sets (or, with nullptr, unsets) the thread-count variables for a test and restores them after.
class ScopedEnv {
 public:
  ScopedEnv() {
    for (const char* name : kNames) {
      const char* v = std::getenv(name);
      saved_.emplace_back(v != nullptr, v != nullptr ? v : "");
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (saved_[i].first) {
        ::setenv(kNames[i], saved_[i].second.c_str(), 1);
      } else {
        ::unsetenv(kNames[i]);
      }
    }
  }
  void set(const char* name, const char* value) { ::setenv(name, value, 1); }

 private:
  static constexpr const char* kNames[] = {"COMPOPT_THREADS", "LOCAL_WORLD_SIZE",
                                           "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
  std::vector<std::pair<bool, std::string>> saved_;
};

size_t hardware() { return std::max(1u, std::thread::hardware_concurrency()); }

TEST(ParallelFor, DefaultThreadCountIsCoresPerRankOnThisHost) {
  ScopedEnv env;
  EXPECT_EQ(ranks_on_this_host(), 1u);
  EXPECT_EQ(default_thread_count(), hardware());
  env.set("LOCAL_WORLD_SIZE", "2");
  EXPECT_EQ(ranks_on_this_host(), 2u);
  EXPECT_EQ(default_thread_count(), std::max<size_t>(1, hardware() / 2));
  {
    const LocalRanksScope four(4);  // e.g. a Local world of 4 rank threads in each process
    EXPECT_EQ(ranks_on_this_host(), 8u);
    const LocalRanksScope more(2);
    EXPECT_EQ(ranks_on_this_host(), 12u);
    EXPECT_EQ(default_thread_count(), std::max<size_t>(1, hardware() / 12));
  }
  EXPECT_EQ(ranks_on_this_host(), 2u);
  env.set("LOCAL_WORLD_SIZE", "100000");  // more ranks than cores: one thread each
  EXPECT_EQ(default_thread_count(), 1u);
  env.set("COMPOPT_THREADS", "3");  // the override wins over cores per rank
  EXPECT_EQ(default_thread_count(), 3u);
}

TEST(ParallelFor, LocalSizeComesFromTheFirstLauncherVariableSet) {
  ScopedEnv env;
  env.set("MPI_LOCALNRANKS", "5");
  EXPECT_EQ(ranks_on_this_host(), 5u);
  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", "3");
  EXPECT_EQ(ranks_on_this_host(), 3u);
  env.set("LOCAL_WORLD_SIZE", "7");
  EXPECT_EQ(ranks_on_this_host(), 7u);
}

TEST(ParallelFor, BadLocalSizeIsRefusedByName) {
  ScopedEnv env;
  for (const char* bad : {"0", "abc", "2x", "-3"}) {
    env.set("OMPI_COMM_WORLD_LOCAL_SIZE", bad);
    try {
      ranks_on_this_host();
      FAIL() << "OMPI_COMM_WORLD_LOCAL_SIZE=" << bad << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("OMPI_COMM_WORLD_LOCAL_SIZE=\"") + bad),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(LocalRanksScope(0), InvalidArgument);
}

}  // namespace
}  // namespace compopt
