#pragma once
// The log lines of refused connections (wrong job token, malformed frames, strays), collapsed:
// a port scanner or a misconfigured job can connect thousands of times, and one line each
// would bury every other message. The first refusal of a kind (rank, what was refused, why)
// is printed in full; the same kind again is counted, and a summary
//   compopt tcp rank 0: refused 1999 more rendezvous connections (job token mismatch) over 12.0 s
// is printed when kSummaryEveryS passed since that kind's last line, and by flush() (the end
// of the rank's setup). Thread-safe: in-process ranks share one log.

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace compopt::tcp {

class RefusalLog {
 public:
  static constexpr double kSummaryEveryS = 10.0;

  // One refused connection of rank `rank`: `what` names the kind ("rendezvous connection"),
  // `from` the peer's address, `why` the reason.
  void refused(int rank, const std::string& what, const std::string& from, const std::string& why);
  // Prints the summaries of rank's counted refusals and forgets them.
  void flush(int rank);

 private:
  using Clock = std::chrono::steady_clock;
  using Key = std::tuple<int, std::string, std::string>;  // rank, what, why
  struct Kind {
    long counted = 0;  // refusals since the last line, not printed
    Clock::time_point first_counted{};
    Clock::time_point last_line{};
  };
  void print_summary(const Key& key, Kind& kind);

  std::mutex mutex_;
  std::map<Key, Kind> kinds_;
};

// The process's log (every rank of this process writes to stderr).
RefusalLog& refusal_log();

}  // namespace compopt::tcp
