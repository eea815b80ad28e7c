#pragma once
// MemoryBudget: what a command may allocate, checked before any work starts. Commands
// estimate the bytes a run will hold at its peak (all ranks of a Local or Sim run live in
// this process) and call require(); a run that would not fit is bad input (exit code 2)
// naming the key to lower, instead of a kill by the kernel or std::bad_alloc mid-run.
//
// The budget is the smaller of /proc/meminfo's MemAvailable and the cgroup (v2 or v1)
// memory limit, less a reserve for the process itself; COMPOPT_MEMORY_LIMIT_MB overrides
// it (tests, or users who know better). Reads are cheap; the object is immutable.

#include <cstdint>
#include <string>
#include <utility>

namespace compopt {

class MemoryBudget {
 public:
  // The budget of this machine now (see above).
  static MemoryBudget of_this_machine();
  // A fixed budget, for tests.
  explicit MemoryBudget(uint64_t bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}

  uint64_t bytes() const { return bytes_; }
  // Where the figure comes from: "MemAvailable", "cgroup memory.max", "COMPOPT_MEMORY_LIMIT_MB".
  const std::string& source() const { return source_; }

  // Throws InvalidArgument "<what> needs about X GiB, more than the Y GiB available
  // (<source>); <advice>" when `needed` exceeds the budget.
  void require(double needed, const std::string& what, const std::string& advice) const;

 private:
  uint64_t bytes_;
  std::string source_;
};

// Parses the "MemAvailable:" line of a /proc/meminfo text into bytes (0 when absent).
uint64_t parse_mem_available(const std::string& meminfo);

// Human-readable size: "512 MiB", "23.4 GiB".
std::string format_bytes(double bytes);

}  // namespace compopt
