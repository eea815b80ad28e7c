#include "core/compress/parallel_for.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/util/error.h"

namespace compopt {
namespace {

// The pool: `workers_` threads that help whichever caller holds `busy_`. A job is published
// under `mutex_` with a new generation; workers join it (at most max_helpers_), claim task
// indices from `next_`, and leave; the caller closes the job and waits until no worker is left
// in it before releasing `busy_`, so no worker ever touches a finished job's function.
class Pool {
 public:
  explicit Pool(size_t threads) : owner_(getpid()) { start(threads); }
  ~Pool() { stop(); }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  pid_t owner() const { return owner_; }

  // Runs the job with the help of up to `threads` - 1 workers; false (nothing run) when another
  // caller holds the pool.
  bool try_run(size_t tasks, size_t threads, detail::TaskCall call, const void* context) {
    bool expected = false;
    if (!busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return false;
    {
      std::lock_guard lock(mutex_);
      call_ = call;
      context_ = context;
      tasks_ = tasks;
      next_.store(0, std::memory_order_relaxed);
      failed_.store(false, std::memory_order_relaxed);
      error_ = nullptr;
      joined_ = 0;
      std::fegetenv(&fenv_);
      max_helpers_ = std::min({workers_.size(), tasks - 1, threads - 1});
      open_ = true;
      ++generation_;
    }
    wake_.notify_all();
    drain(call, context, tasks);
    std::exception_ptr error;
    {
      std::unique_lock lock(mutex_);
      open_ = false;
      idle_.wait(lock, [&] { return in_job_ == 0; });
      error = std::exchange(error_, nullptr);
    }
    busy_.store(false, std::memory_order_release);
    if (error) std::rethrow_exception(error);
    return true;
  }

  // Restarts with `threads` - 1 workers once no job runs.
  void resize(size_t threads) {
    bool expected = false;
    while (!busy_.compare_exchange_weak(expected, true, std::memory_order_acquire)) {
      expected = false;
      std::this_thread::yield();
    }
    stop();
    start(threads);
    busy_.store(false, std::memory_order_release);
  }

  Pool* retired = nullptr;  // a pool inherited across fork(), kept reachable, never touched

 private:
  void start(size_t threads) {
    stop_ = false;
    for (size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  void work() {
    uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock,
                 [&] { return stop_ || (open_ && generation_ != seen && joined_ < max_helpers_); });
      if (stop_) return;
      seen = generation_;
      ++joined_;
      ++in_job_;
      const detail::TaskCall call = call_;
      const void* context = context_;
      const size_t tasks = tasks_;
      const std::fenv_t caller_fenv = fenv_;
      lock.unlock();
      std::fenv_t own_fenv;
      std::fegetenv(&own_fenv);
      std::fesetenv(&caller_fenv);  // rounding mode, FTZ/DAZ: results as on the caller's thread
      drain(call, context, tasks);
      std::fesetenv(&own_fenv);
      lock.lock();
      if (--in_job_ == 0) idle_.notify_all();
    }
  }

  void drain(detail::TaskCall call, const void* context, size_t tasks) {
    for (;;) {
      const size_t task = next_.fetch_add(1, std::memory_order_relaxed);
      if (task >= tasks || failed_.load(std::memory_order_relaxed)) return;
      try {
        call(context, task);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
        failed_.store(true, std::memory_order_relaxed);
      }
    }
  }

  const pid_t owner_;
  std::atomic<bool> busy_{false};
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::vector<std::thread> workers_;
  bool stop_ = false;
  // The current job (guarded by mutex_ except next_ and failed_).
  uint64_t generation_ = 0;
  bool open_ = false;
  size_t joined_ = 0, max_helpers_ = 0, in_job_ = 0;
  detail::TaskCall call_ = nullptr;
  const void* context_ = nullptr;
  size_t tasks_ = 0;
  std::fenv_t fenv_{};
  std::atomic<size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

std::atomic<size_t> g_thread_override{0};   // 0: none
std::atomic<size_t> g_in_process_ranks{0};  // sum over the live LocalRanksScopes
std::atomic<Pool*> g_pool{nullptr};
std::mutex g_resize_mutex;  // serializes set_thread_count

size_t hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : std::min<size_t>(n, kMaxThreads);
}

// Launchers' variables for the number of ranks on this host, in the order they are consulted.
constexpr const char* kLocalSizeVariables[] = {"LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
                                               "MPI_LOCALNRANKS"};
constexpr size_t kMaxLocalRanks = 1 << 20;

// The integer in 1..max that `name`=`value` holds; InvalidArgument naming both otherwise.
size_t parse_count(const char* name, std::string_view text, size_t max) {
  size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > max) {
    throw InvalidArgument(std::string(name) + "=\"" + std::string(text) +
                          "\": expected an integer in 1.." + std::to_string(max));
  }
  return n;
}

// Threads the pool starts with: every job then takes at most thread_count() of them.
size_t pool_threads() {
  const size_t forced = g_thread_override.load(std::memory_order_relaxed);
  if (forced != 0) return forced;
  const char* env = std::getenv("COMPOPT_THREADS");
  return env != nullptr && *env != '\0' ? thread_count_from_env(env) : hardware_threads();
}

// The pool of this process (a forked child gets a fresh one: the parent's threads are gone).
Pool& pool() {
  Pool* current = g_pool.load(std::memory_order_acquire);
  while (current == nullptr || current->owner() != getpid()) {
    auto* fresh = new Pool(pool_threads());
    fresh->retired = current;
    if (g_pool.compare_exchange_strong(current, fresh, std::memory_order_acq_rel)) return *fresh;
    fresh->retired = nullptr;
    delete fresh;  // another thread installed one first; `current` now holds it
  }
  return *current;
}

}  // namespace

size_t thread_count_from_env(const char* value) {
  if (value == nullptr || *value == '\0') {
    return std::max<size_t>(1, hardware_threads() / ranks_on_this_host());
  }
  return parse_count("COMPOPT_THREADS", value, kMaxThreads);
}

size_t default_thread_count() { return thread_count_from_env(std::getenv("COMPOPT_THREADS")); }

size_t thread_count() {
  const size_t forced = g_thread_override.load(std::memory_order_relaxed);
  return forced != 0 ? forced : default_thread_count();
}

size_t ranks_on_this_host() {
  size_t processes = 1;
  for (const char* name : kLocalSizeVariables) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') {
      processes = parse_count(name, value, kMaxLocalRanks);
      break;
    }
  }
  const size_t threads = g_in_process_ranks.load(std::memory_order_relaxed);
  return processes * std::max<size_t>(1, threads);
}

LocalRanksScope::LocalRanksScope(size_t ranks) : ranks_(ranks) {
  if (ranks < 1 || ranks > kMaxLocalRanks) {
    throw InvalidArgument("LocalRanksScope(" + std::to_string(ranks) + "): expected 1.." +
                          std::to_string(kMaxLocalRanks) + " ranks");
  }
  g_in_process_ranks.fetch_add(ranks, std::memory_order_relaxed);
}

LocalRanksScope::~LocalRanksScope() {
  g_in_process_ranks.fetch_sub(ranks_, std::memory_order_relaxed);
}

void set_thread_count(size_t threads) {
  if (threads < 1 || threads > kMaxThreads) {
    throw InvalidArgument("set_thread_count(" + std::to_string(threads) + "): expected 1.." +
                          std::to_string(kMaxThreads));
  }
  std::lock_guard lock(g_resize_mutex);
  g_thread_override.store(threads, std::memory_order_relaxed);
  Pool* current = g_pool.load(std::memory_order_acquire);
  if (current != nullptr && current->owner() == getpid()) current->resize(threads);
}

namespace detail {

void run_tasks(size_t tasks, TaskCall call, const void* context) {
  const size_t threads = tasks >= 2 ? thread_count() : 1;
  if (threads > 1 && pool().try_run(tasks, threads, call, context)) return;
  for (size_t t = 0; t < tasks; ++t) call(context, t);
}

}  // namespace detail
}  // namespace compopt
