#pragma once
// A small fork-join pool for the compression kernels.
//
// parallel_for(tasks, fn) runs fn(i) exactly once for every i in [0, tasks) on the calling thread
// plus up to thread_count() - 1 pool threads, and returns when all have finished. Tasks are fixed
// by the caller (e.g. one per 65536 elements), never by the thread count, so a kernel whose tasks
// write disjoint outputs gives the same bits for any thread count.
//
// Concurrency: any number of threads may call parallel_for at once (e.g. 16 ranks of the Local
// backend in one process). One caller at a time gets the pool; the others run their tasks inline,
// in index order, on their own thread, so callers never wait for each other, never deadlock, and
// at most (callers + thread_count() - 1) threads compute. A parallel_for called from inside a task
// runs inline too. Pool threads run a job under the caller's floating-point environment
// (rounding mode, FTZ/DAZ). The pool starts on first use; a forked child starts its own.
//
// Thread count: set_thread_count(n) if called, else COMPOPT_THREADS (an integer in 1..kMaxThreads)
// if set, else the cores per rank: std::thread::hardware_concurrency() / ranks_on_this_host(), at
// least 1, so ranks sharing a host do not oversubscribe its cores (each rank process has its own
// pool; in-process ranks share one pool, which still gives each job at most that many threads). A
// task that throws: the first exception is rethrown to the caller once every running task has
// returned (tasks not yet started are skipped).

#include <cstddef>

namespace compopt {

inline constexpr size_t kMaxThreads = 256;
// Kernels split vectors over threads only from this many elements on (smaller ones run inline:
// the wake-up of a pool thread costs more than it saves).
inline constexpr size_t kParallelMinElements = size_t{1} << 18;

// Threads a parallel_for may use (>= 1): set_thread_count's value, else default_thread_count().
size_t thread_count();
// COMPOPT_THREADS if set, else max(1, hardware threads / ranks_on_this_host()). Throws
// InvalidArgument naming the variable and value when COMPOPT_THREADS or a local-size variable
// holds something other than an integer in range.
size_t default_thread_count();
// Ranks sharing this host's cores: the launcher's local size (LOCAL_WORLD_SIZE from torchrun or
// `compopt launch`, OMPI_COMM_WORLD_LOCAL_SIZE from Open MPI's mpirun, MPI_LOCALNRANKS from
// MPICH's; the first one set, 1 if none) times the ranks this process runs as threads (the
// LocalRanksScopes alive, 1 if none).
size_t ranks_on_this_host();

// While alive, counts `ranks` more ranks running as threads of this process (the Local backend,
// in-process TCP ranks) in ranks_on_this_host(). Throws InvalidArgument for ranks < 1.
class LocalRanksScope {
 public:
  explicit LocalRanksScope(size_t ranks);
  ~LocalRanksScope();
  LocalRanksScope(const LocalRanksScope&) = delete;
  LocalRanksScope& operator=(const LocalRanksScope&) = delete;

 private:
  size_t ranks_;
};
// Overrides COMPOPT_THREADS and the hardware default; waits for a running parallel_for to finish.
// Throws InvalidArgument unless 1 <= threads <= kMaxThreads.
void set_thread_count(size_t threads);
// The thread count that COMPOPT_THREADS=`value` asks for (the cores-per-rank default when value
// is null or empty); throws InvalidArgument for anything but an integer in 1..kMaxThreads.
size_t thread_count_from_env(const char* value);

namespace detail {
using TaskCall = void (*)(const void* context, size_t task);
void run_tasks(size_t tasks, TaskCall call, const void* context);
}  // namespace detail

template <class F>
void parallel_for(size_t tasks, const F& fn) {
  detail::run_tasks(
      tasks, [](const void* context, size_t task) { (*static_cast<const F*>(context))(task); },
      &fn);
}

// Splits [0, n) into ceil(n / grain) ranges of `grain` elements (the last one shorter) and runs
// fn(index, begin, end) for each; inline, in order, when n < kParallelMinElements.
template <class F>
void parallel_for_ranges(size_t n, size_t grain, const F& fn) {
  const size_t tasks = (n + grain - 1) / grain;
  const auto range = [&](size_t t) {
    const size_t begin = t * grain;
    fn(t, begin, n - begin < grain ? n : begin + grain);
  };
  if (n < kParallelMinElements || tasks < 2) {
    for (size_t t = 0; t < tasks; ++t) range(t);
  } else {
    parallel_for(tasks, range);
  }
}

}  // namespace compopt
