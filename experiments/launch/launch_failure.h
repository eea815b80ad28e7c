#pragma once
// Why a launch failed, for the launcher's last line. Failures are the ranks that ended with a
// non-zero exit code or a signal, in the order they ended; ranks the launcher itself killed
// after the grace period are no evidence and are left out. A failed rank's last error line
// often names the rank it blames ("rank 0: lost connection to rank 3 ... rank 3 died or was
// killed"). The first rank to end is not always the cause: a rank killed with SIGKILL can be
// reaped after a peer that saw its sockets close. So the root cause follows the blame from the
// first failure to the failed rank it names, as long as the rank at hand exited with a code
// (a rank killed by a signal did not fail because of a peer, and its last line is no error).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace compopt::cli {

struct RankEnd {
  int rank = 0;            // global rank
  int status = 0;          // waitpid() status
  std::string last_error;  // the last line the rank wrote to stderr
};

// "exited with code 1", "was killed by signal 9 (Killed)", "was stopped by signal 19 (Stopped
// (signal))" (a rank the launcher counts as failed after it stayed stopped too long).
std::string describe_status(int status);

// True when `status` is a failure: a non-zero exit code, or killed or stopped by a signal.
bool failed_status(int status);

// The rank `message` blames: the number of its last "rank N" with N in 0..world_size-1 other
// than `own_rank` (in nested messages the innermost cause comes last); -1 when none.
int named_rank(std::string_view message, int own_rank, int world_size);

// The index in `failures` (in the order the ranks ended, not empty) of the root cause.
size_t root_cause(const std::vector<RankEnd>& failures, int world_size);

// "rank 3 was killed by signal 9 (Killed), the first rank to fail; the errors of ranks 0, 1
// name rank 3", or, when the root cause ended later, "rank 3 was killed by signal 9 (Killed),
// the cause named by the first rank to fail, rank 1 (exited with code 1); ...".
std::string failure_summary(const std::vector<RankEnd>& failures, int world_size);

}  // namespace compopt::cli
