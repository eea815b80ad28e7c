#include "real_backend/mpi/mpi_liveness.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "real_backend/heartbeat_partners.h"

namespace compopt::mpi {
namespace {

constexpr int kTag = 7;
// Static storage: a send left to MPI (release_send) may read its byte after this rank's
// MpiLiveness is gone.
constexpr char kBeat = 'h';
constexpr char kGoodbye = 'g';
// How long a finishing rank waits for its last heartbeat and goodbye to leave.
constexpr double kGoodbyeWaitS = 1.0;

// Tests `request` until it completes (true) or `seconds` pass (false).
bool wait_for(MPI_Request& request, double seconds) {
  const double deadline = MPI_Wtime() + seconds;
  for (;;) {
    int flag = 1;
    if (request != MPI_REQUEST_NULL) MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    if (flag) return true;
    if (MPI_Wtime() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// A send still pending after the wait is left to MPI (freed, not cancelled: cancelling
// sends is deprecated and unsupported by some transports).
void release_send(MPI_Request& request, double seconds) {
  if (!wait_for(request, seconds)) MPI_Request_free(&request);
}

void cancel_recv(MPI_Request& request) {
  if (wait_for(request, 0.0)) return;
  MPI_Cancel(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

}  // namespace

MpiLiveness::MpiLiveness(MPI_Comm comm, double interval_s, double silence_timeout_s)
    : interval_s_(interval_s), silence_timeout_s_(silence_timeout_s) {
  MPI_Comm_dup(comm, &comm_);
  int size = 1;
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size);
  const double now = MPI_Wtime();
  for (int p = 0; p < size; ++p) {
    if (!heartbeat_partners(rank_, p, size)) continue;
    Partner partner;
    partner.rank = p;
    partner.last_heard = now;
    partners_.push_back(partner);
  }
  for (Partner& p : partners_) post_recv(p);
  thread_ = std::thread([this] { run(); });
}

MpiLiveness::~MpiLiveness() {
  stop_ = true;
  thread_.join();
  say_goodbye();
  MPI_Comm_free(&comm_);
}

void MpiLiveness::post_recv(Partner& p) {
  MPI_Irecv(&p.recv_byte, 1, MPI_CHAR, p.rank, kTag, comm_, &p.recv);
}

void MpiLiveness::run() {
  const auto pause = std::chrono::duration<double>(std::min(0.05, interval_s_ / 4));
  while (!stop_) {
    const double now = MPI_Wtime();
    for (Partner& p : partners_) poll(p, now);
    std::this_thread::sleep_for(pause);
  }
}

void MpiLiveness::poll(Partner& p, double now) {
  if (p.done) return;
  int arrived = 1;
  while (arrived && !p.done) {
    MPI_Test(&p.recv, &arrived, MPI_STATUS_IGNORE);
    if (!arrived) break;
    p.last_heard = now;
    if (p.recv_byte == kGoodbye) {
      p.done = true;
    } else {
      post_recv(p);
    }
  }
  if (p.done) return;
  if (now - p.last_heard > silence_timeout_s_) {
    std::fprintf(stderr,
                 "compopt mpi rank %d: rank %d stopped responding (no heartbeat for %.1f s); "
                 "aborting the job\n",
                 rank_, p.rank, now - p.last_heard);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int sent = 1;
  if (p.send != MPI_REQUEST_NULL) MPI_Test(&p.send, &sent, MPI_STATUS_IGNORE);
  if (sent && now - p.last_sent >= interval_s_) {
    MPI_Isend(&kBeat, 1, MPI_CHAR, p.rank, kTag, comm_, &p.send);
    p.last_sent = now;
  }
}

void MpiLiveness::say_goodbye() {
  for (Partner& p : partners_) {
    release_send(p.send, kGoodbyeWaitS);
    if (!p.done) {
      MPI_Isend(&kGoodbye, 1, MPI_CHAR, p.rank, kTag, comm_, &p.send);
    }
  }
  for (Partner& p : partners_) {
    release_send(p.send, kGoodbyeWaitS);
    if (!p.done) cancel_recv(p.recv);
  }
}

}  // namespace compopt::mpi
