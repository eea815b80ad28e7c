#include "real_backend/tcp/refusal_log.h"

#include <fmt/format.h>

#include <cstdio>

namespace compopt::tcp {

void RefusalLog::refused(int rank, const std::string& what, const std::string& from,
                         const std::string& why) {
  const std::lock_guard lock(mutex_);
  const Key key{rank, what, why};
  const auto now = Clock::now();
  const auto [at, first] = kinds_.try_emplace(key);
  Kind& kind = at->second;
  if (first) {
    fmt::print(stderr, "compopt tcp rank {}: refused {} from {}: {}\n", rank, what, from, why);
    kind.last_line = now;
    return;
  }
  if (kind.counted++ == 0) kind.first_counted = now;
  if (std::chrono::duration<double>(now - kind.last_line).count() >= kSummaryEveryS)
    print_summary(key, kind);
}

void RefusalLog::print_summary(const Key& key, Kind& kind) {
  const auto now = Clock::now();
  if (kind.counted > 0) {
    const auto& [rank, what, why] = key;
    fmt::print(stderr, "compopt tcp rank {}: refused {} more {}{} ({}) over {:.1f} s\n", rank,
               kind.counted, what, kind.counted == 1 ? "" : "s", why,
               std::chrono::duration<double>(now - kind.first_counted).count());
  }
  kind.counted = 0;
  kind.last_line = now;
}

void RefusalLog::flush(int rank) {
  const std::lock_guard lock(mutex_);
  for (auto at = kinds_.begin(); at != kinds_.end();) {
    if (std::get<0>(at->first) != rank) {
      ++at;
      continue;
    }
    print_summary(at->first, at->second);
    at = kinds_.erase(at);
  }
  std::fflush(stderr);
}

RefusalLog& refusal_log() {
  static RefusalLog log;
  return log;
}

}  // namespace compopt::tcp
