#include "real_backend/mpi/mpi_startup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/util/env.h"

namespace compopt::mpi {
namespace {

// A tag of MPI_COMM_WORLD used only here, before the program's own code runs (every MPI's
// MPI_TAG_UB is at least 32767).
constexpr int kRollCallTag = 32101;
constexpr char kHere = 'r';

int env_int(const char* name) {
  const char* v = env_value(name);
  if (v == nullptr) return -1;
  char* end = nullptr;
  const long value = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && value >= 0 && value < (1 << 24) ? static_cast<int>(value) : -1;
}

// Tests `requests` until all completed or `seconds` passed; returns which completed.
std::vector<bool> wait_until(std::vector<MPI_Request>& requests, double seconds) {
  const double deadline = MPI_Wtime() + seconds;
  std::vector<bool> completed(requests.size(), false);
  for (size_t left = requests.size(); left > 0 && MPI_Wtime() < deadline;) {
    for (size_t i = 0; i < requests.size(); ++i) {
      if (completed[i]) continue;
      int flag = 0;
      MPI_Test(&requests[i], &flag, MPI_STATUS_IGNORE);
      if (flag) {
        completed[i] = true;
        --left;
      }
    }
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return completed;
}

[[noreturn]] void abort_job(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // MPI_Abort does not return; this keeps the compiler sure of it
}

// Rank 0: receive every other rank's byte, then answer each.
void call_the_roll(MPI_Comm comm, int size, double timeout_s) {
  std::vector<char> bytes(static_cast<size_t>(size));
  std::vector<MPI_Request> requests(static_cast<size_t>(size - 1));
  for (int r = 1; r < size; ++r)
    MPI_Irecv(&bytes[static_cast<size_t>(r)], 1, MPI_CHAR, r, kRollCallTag, comm,
              &requests[static_cast<size_t>(r - 1)]);
  const std::vector<bool> answered = wait_until(requests, timeout_s);
  std::vector<int> missing;
  for (int r = 1; r < size; ++r)
    if (!answered[static_cast<size_t>(r - 1)]) missing.push_back(r);
  if (!missing.empty()) {
    abort_job(fmt::format(
        "compopt mpi rank 0: {} {} did not answer the start-up roll call within {:g} s after "
        "MPI_Init (stopped, hung or lost); aborting the job",
        missing.size() == 1 ? "rank" : "ranks", fmt::join(missing, ", "), timeout_s));
  }
  std::vector<MPI_Request> answers(static_cast<size_t>(size - 1));
  for (int r = 1; r < size; ++r)
    MPI_Isend(&kHere, 1, MPI_CHAR, r, kRollCallTag, comm, &answers[static_cast<size_t>(r - 1)]);
  MPI_Waitall(size - 1, answers.data(), MPI_STATUSES_IGNORE);  // one byte each: eager
}

}  // namespace

std::pair<int, int> launcher_rank_and_size() {
  int rank = env_int("OMPI_COMM_WORLD_RANK");
  int size = env_int("OMPI_COMM_WORLD_SIZE");
  if (rank < 0) rank = env_int("PMI_RANK");
  if (size < 0) size = env_int("PMI_SIZE");
  return {rank, size};
}

StartupWatchdog::StartupWatchdog(double timeout_s, int rank, int size)
    : timeout_s_(timeout_s), rank_(rank), size_(size), thread_([this] { watch(); }) {}

StartupWatchdog::~StartupWatchdog() {
  done();
  thread_.join();
}

void StartupWatchdog::phase(const std::string& what) {
  const std::lock_guard lock(mutex_);
  phase_ = what;
}

void StartupWatchdog::done() {
  const std::lock_guard lock(mutex_);
  done_ = true;
  changed_.notify_all();
}

void StartupWatchdog::watch() {
  std::unique_lock lock(mutex_);
  if (changed_.wait_for(lock, std::chrono::duration<double>(timeout_s_), [this] { return done_; }))
    return;
  const std::string who = rank_ < 0 ? std::string("?") : std::to_string(rank_);
  const std::string of = size_ < 0 ? std::string("?") : std::to_string(size_);
  std::fprintf(stderr,
               "compopt mpi rank %s of %s: start-up did not finish within %g s (stuck in %s): a "
               "rank did not join (stopped, hung or not started); the ranks printing this line "
               "were waiting; ending this rank (COMPOPT_MPI_STARTUP_S sets the limit)\n",
               who.c_str(), of.c_str(), timeout_s_, phase_.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

void roll_call(MPI_Comm comm, double timeout_s) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size == 1) return;
  if (rank == 0) {
    call_the_roll(comm, size, timeout_s);
    return;
  }
  char answer = 0;
  std::vector<MPI_Request> requests(2);
  MPI_Isend(&kHere, 1, MPI_CHAR, 0, kRollCallTag, comm, &requests[0]);
  MPI_Irecv(&answer, 1, MPI_CHAR, 0, kRollCallTag, comm, &requests[1]);
  if (!wait_until(requests, 2 * timeout_s)[1]) {
    abort_job(fmt::format(
        "compopt mpi rank {}: rank 0 did not answer the start-up roll call within {:g} s after "
        "MPI_Init (stopped, hung or lost); aborting the job",
        rank, 2 * timeout_s));
  }
}

}  // namespace compopt::mpi
