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
// if set, else std::thread::hardware_concurrency(). A task that throws: the first exception is
// rethrown to the caller once every running task has returned (tasks not yet started are skipped).

#include <cstddef>

namespace compopt {

inline constexpr size_t kMaxThreads = 256;
// Kernels split vectors over threads only from this many elements on (smaller ones run inline:
// the wake-up of a pool thread costs more than it saves).
inline constexpr size_t kParallelMinElements = size_t{1} << 18;

// Threads a parallel_for may use (>= 1). Throws InvalidArgument naming the value when
// COMPOPT_THREADS is set to something other than an integer in 1..kMaxThreads.
size_t thread_count();
// Overrides COMPOPT_THREADS and the hardware default; waits for a running parallel_for to finish.
// Throws InvalidArgument unless 1 <= threads <= kMaxThreads.
void set_thread_count(size_t threads);
// The thread count that COMPOPT_THREADS=`value` asks for (hardware default when value is null or
// empty); throws InvalidArgument for anything but an integer in 1..kMaxThreads.
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
