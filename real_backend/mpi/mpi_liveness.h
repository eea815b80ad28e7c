#pragma once
// Liveness of an MPI job, independent of operation timeouts: a thread per rank
// exchanges one-byte heartbeats with its heartbeat partners
// (real_backend/heartbeat_partners.h) on a private duplicate of the communicator.
// A partner silent for silence_timeout_s is reported on stderr as
//   compopt mpi rank R: rank P stopped responding (no heartbeat for X s); aborting the job
// and MPI_Abort ends the whole job (mpirun then kills every rank, a stopped one
// included). Heartbeats come from this thread, never from the rank's own calls, so a
// rank that computes for minutes or moves a huge message is not failed; only a rank
// whose process stopped (SIGSTOP, a hung node) or lost its network goes silent.
// On destruction the rank tells its partners it is done (they stop watching it).
// Needs MPI_THREAD_MULTIPLE (the thread calls MPI while the rank's thread does).

#include <mpi.h>

#include <atomic>
#include <thread>
#include <vector>

namespace compopt::mpi {

class MpiLiveness {
 public:
  // Collective over `comm` (duplicates it). interval_s < silence_timeout_s / 2.
  MpiLiveness(MPI_Comm comm, double interval_s, double silence_timeout_s);
  ~MpiLiveness();
  MpiLiveness(const MpiLiveness&) = delete;
  MpiLiveness& operator=(const MpiLiveness&) = delete;

 private:
  struct Partner {
    int rank = -1;
    MPI_Request recv = MPI_REQUEST_NULL;
    MPI_Request send = MPI_REQUEST_NULL;
    char recv_byte = 0;
    double last_heard = 0;
    double last_sent = -1e30;
    bool done = false;  // said goodbye
  };

  void run();
  // Receives what arrived from `p`, aborts the job when it has been silent too long,
  // sends a heartbeat when one is due.
  void poll(Partner& p, double now);
  void post_recv(Partner& p);
  void say_goodbye();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  double interval_s_;
  double silence_timeout_s_;
  std::vector<Partner> partners_;
  std::atomic<bool> stop_ = false;
  std::thread thread_;
};

}  // namespace compopt::mpi
