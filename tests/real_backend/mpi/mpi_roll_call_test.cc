// The start-up roll call names a rank that does not answer: run under mpirun with 2 or more
// ranks, the last rank sleeps 3 s before it answers a roll call with a 0.5 s budget, so rank
// 0 must print "rank N did not answer the start-up roll call within 0.5 s" and abort the job
// (ctest matches the line; mpirun's exit code is not 0). With every rank answering at once
// first, a roll call also passes: the first call must return on every rank.

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "real_backend/mpi/mpi_startup.h"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  compopt::mpi::roll_call(MPI_COMM_WORLD, 2.0);
  std::printf("rank %d: first roll call answered\n", rank);
  std::fflush(stdout);
  if (rank == size - 1) std::this_thread::sleep_for(std::chrono::seconds(3));
  compopt::mpi::roll_call(MPI_COMM_WORLD, 0.5);
  std::printf("rank %d: the late rank was not named\n", rank);
  MPI_Finalize();
  return 1;
}
