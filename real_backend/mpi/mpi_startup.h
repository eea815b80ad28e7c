#pragma once
// Bounded start-up of an MPI rank. Before the liveness thread (mpi_liveness.h) runs, a rank
// that stopped (SIGSTOP, a hung node) or never started leaves the others blocked inside MPI's
// own collectives: MPI_Init_thread waits for every rank, MPI_Comm_dup too. Two guards:
//
// - StartupWatchdog: a plain thread (no MPI calls) started before MPI_Init_thread. When
//   start-up has not finished after `timeout_s` (COMPOPT_MPI_STARTUP_S, 60 s), it prints
//     compopt mpi rank R of N: start-up did not finish within T s (stuck in PHASE) ...
//   and ends the process with exit code 1; mpirun then ends the job. Inside MPI_Init_thread
//   nobody can tell which rank is missing: the ranks that print the line are the ones
//   waiting, so the silent rank is the one that does not.
// - roll_call: right after MPI_Init_thread every rank reports to rank 0 with one byte of
//   nonblocking point-to-point, and rank 0 answers once all did. A rank missing after
//   `timeout_s` (the liveness silence timeout, 4 s) is named ("rank 1 did not answer the
//   start-up roll call within 4 s") and the job aborted; a rank that hears nothing back
//   from rank 0 within twice that names rank 0.

#include <mpi.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace compopt::mpi {

class StartupWatchdog {
 public:
  // `rank` and `size` as the launcher's environment says (before MPI knows): -1 when unknown.
  StartupWatchdog(double timeout_s, int rank, int size);
  ~StartupWatchdog();  // done()
  StartupWatchdog(const StartupWatchdog&) = delete;
  StartupWatchdog& operator=(const StartupWatchdog&) = delete;

  // What start-up does now, for the message ("MPI_Init_thread").
  void phase(const std::string& what);
  // Start-up finished: the thread ends without doing anything.
  void done();

 private:
  void watch();

  double timeout_s_;
  int rank_;
  int size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string phase_ = "starting";
  bool done_ = false;
  std::thread thread_;
};

// The rank and world size mpirun (OMPI_COMM_WORLD_*) or another PMI launcher (PMI_*) put in
// the environment; -1 each when absent.
std::pair<int, int> launcher_rank_and_size();

// See above. Collective over `comm`; returns when every rank answered, else aborts the job.
void roll_call(MPI_Comm comm, double timeout_s);

}  // namespace compopt::mpi
