#include "experiments/launch/launch_failure.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

namespace compopt::cli {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// "rank 0", "ranks 0, 1".
std::string rank_list(const std::vector<int>& ranks) {
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(ranks, ", "));
}

}  // namespace

std::string describe_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  }
  if (WIFSTOPPED(status)) {
    return fmt::format("was stopped by signal {} ({})", WSTOPSIG(status),
                       strsignal(WSTOPSIG(status)));
  }
  return "ended";
}

bool failed_status(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

int named_rank(std::string_view message, int own_rank, int world_size) {
  constexpr std::string_view kWord = "rank ";
  int named = -1;
  for (size_t at = message.find(kWord); at != std::string_view::npos;
       at = message.find(kWord, at + 1)) {
    if (at > 0 && word_char(message[at - 1])) continue;
    size_t digit = at + kWord.size();
    long value = -1;
    for (; digit < message.size() && std::isdigit(static_cast<unsigned char>(message[digit]));
         ++digit) {
      value = (value < 0 ? 0 : value * 10) + (message[digit] - '0');
      if (value >= world_size) break;
    }
    if (value >= 0 && value < world_size && value != own_rank) named = static_cast<int>(value);
  }
  return named;
}

size_t root_cause(const std::vector<RankEnd>& failures, int world_size) {
  size_t at = 0;
  std::vector<bool> visited(failures.size(), false);
  for (;;) {
    visited[at] = true;
    const RankEnd& end = failures[at];
    if (!WIFEXITED(end.status)) return at;  // killed: it did not fail because of a peer
    const int named = named_rank(end.last_error, end.rank, world_size);
    const auto next = std::find_if(failures.begin(), failures.end(),
                                   [&](const RankEnd& e) { return e.rank == named; });
    if (next == failures.end() || visited[static_cast<size_t>(next - failures.begin())]) return at;
    at = static_cast<size_t>(next - failures.begin());
  }
}

std::string failure_summary(const std::vector<RankEnd>& failures, int world_size) {
  const RankEnd& first = failures.front();
  const RankEnd& root = failures[root_cause(failures, world_size)];
  std::string text = fmt::format("rank {} {}", root.rank, describe_status(root.status));
  text += root.rank == first.rank
              ? ", the first rank to fail"
              : fmt::format(", the cause named by the first rank to fail, rank {} ({})", first.rank,
                            describe_status(first.status));
  std::map<int, std::vector<int>> blamers;  // named rank -> ranks whose error names it
  std::vector<int> order;                   // named ranks in the order they were first named
  for (const RankEnd& end : failures) {
    const int named = WIFEXITED(end.status) ? named_rank(end.last_error, end.rank, world_size) : -1;
    if (named < 0) continue;  // no name, or a killed rank's last line, which is no error
    if (blamers[named].empty()) order.push_back(named);
    blamers[named].push_back(end.rank);
  }
  for (const int named : order) {
    const std::vector<int>& by = blamers[named];
    text += fmt::format("; the {} of {} {} rank {}", by.size() == 1 ? "error" : "errors",
                        rank_list(by), by.size() == 1 ? "names" : "name", named);
  }
  return text;
}

}  // namespace compopt::cli
