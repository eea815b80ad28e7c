#pragma once
// Why a launch failed, for the launcher's last line. The root cause is the rank that ended
// first with a failure (non-zero exit code or a signal); ranks the launcher itself killed after
// the grace period are no evidence and are left out. A failed rank's last error line often
// names the rank it blames ("rank 0: lost connection to rank 3 ... rank 3 died or was killed"),
// and the summary says which ranks named whom, so a root cause on another node shows too.

#include <string>
#include <string_view>
#include <vector>

namespace compopt::cli {

struct RankEnd {
  int rank = 0;            // global rank
  int status = 0;          // waitpid() status
  std::string last_error;  // the last line the rank wrote to stderr
};

// "exited with code 1", "was killed by signal 9 (Killed)".
std::string describe_status(int status);

// True when `status` is a failure: a non-zero exit code or a signal.
bool failed_status(int status);

// The rank `message` blames: the number of its last "rank N" with N in 0..world_size-1 other
// than `own_rank` (in nested messages the innermost cause comes last); -1 when none.
int named_rank(std::string_view message, int own_rank, int world_size);

// "rank 3 was killed by signal 9 (Killed), the first rank to fail; the errors of ranks 0, 1
// name rank 3". `failures` holds the failed ranks in the order they ended (not empty).
std::string failure_summary(const std::vector<RankEnd>& failures, int world_size);

}  // namespace compopt::cli
