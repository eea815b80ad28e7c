#pragma once
// Runs independent jobs in forked child processes, `parallel` at a time. Each
// SimGrid simulation needs a process of its own (one engine per process), and
// forking also spreads the studies over the cores. work(i) runs in the child
// and returns text that is sent back through a pipe (read as it arrives, so any
// size is fine); the parent gets the texts in job order.
//
// Call it from a process without other threads (fork copies only the caller). A job is
// killed when the calling process dies (Linux's parent-death signal), so a killed sweep or
// predict-collective leaves nothing running.
// If a job throws or its process dies, no further jobs start, the running ones
// finish, and std::runtime_error names the first failed job and its message; an
// InvalidArgument thrown by the job comes back as InvalidArgument (same message).

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace compopt::cli {

struct ForkedJobs {
  size_t count = 0;
  int parallel = 1;
  std::function<std::string(size_t)> work;
  std::function<std::string(size_t)> describe;  // for error messages
  std::function<void(size_t)> on_done = {};     // in the parent, as each job finishes
};

std::vector<std::string> run_forked(const ForkedJobs& jobs);

// The default degree of parallelism: `requested` if > 0, else the core count.
int parallel_jobs(int requested);

}  // namespace compopt::cli
