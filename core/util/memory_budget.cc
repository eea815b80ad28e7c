#include "core/util/memory_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <utility>

#include "core/util/env.h"
#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"

namespace compopt {
namespace {

// Left for the process itself, its libraries and the page cache it touches.
constexpr uint64_t kReserveBytes = uint64_t{256} << 20;
constexpr uint64_t kMiB = uint64_t{1} << 20;

// The text of a kernel file, or "" where this system has none.
std::string read_text(const char* path) {
  try {
    return read_text_file(path);
  } catch (const IoError&) {
    return {};
  }
}

// The cgroup limit of this process in bytes, or 0 when there is none ("max" or absent).
uint64_t cgroup_limit() {
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const std::string text = read_text(path);
    if (text.empty() || text.rfind("max", 0) == 0) continue;
    const uint64_t limit = std::strtoull(text.c_str(), nullptr, 10);
    // cgroup v1 reports "no limit" as a huge number close to 2^63.
    if (limit > 0 && limit < (uint64_t{1} << 60)) return limit;
  }
  return 0;
}

}  // namespace

uint64_t parse_mem_available(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    uint64_t kib = 0;
    std::string unit;
    if (fields >> kib >> unit && unit == "kB") return kib * 1024;
  }
  return 0;
}

MemoryBudget MemoryBudget::of_this_machine() {
  if (const char* text = env_value("COMPOPT_MEMORY_LIMIT_MB")) {
    const long mb = parse_env_integer("COMPOPT_MEMORY_LIMIT_MB", text, 1, long{1} << 40);
    return MemoryBudget(static_cast<uint64_t>(mb) * kMiB, "COMPOPT_MEMORY_LIMIT_MB");
  }
  uint64_t bytes = parse_mem_available(read_text("/proc/meminfo"));
  std::string source = "MemAvailable";
  const uint64_t limit = cgroup_limit();
  if (limit > 0 && (bytes == 0 || limit < bytes)) {
    bytes = limit;
    source = "cgroup memory limit";
  }
  if (bytes == 0) return MemoryBudget(UINT64_MAX, "unknown (no /proc/meminfo)");
  return MemoryBudget(bytes > kReserveBytes ? bytes - kReserveBytes : 0, source);
}

void MemoryBudget::require(double needed, const std::string& what,
                           const std::string& advice) const {
  if (needed <= static_cast<double>(bytes_)) return;
  throw InvalidArgument(fmt::format("{} needs about {}, more than the {} available ({}); {}", what,
                                    format_bytes(needed), format_bytes(static_cast<double>(bytes_)),
                                    source_, advice));
}

std::string format_bytes(double bytes) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (bytes >= kGiB) return fmt::format("{:.1f} GiB", bytes / kGiB);
  return fmt::format("{:.0f} MiB", std::max(bytes, 0.0) / static_cast<double>(kMiB));
}

}  // namespace compopt
