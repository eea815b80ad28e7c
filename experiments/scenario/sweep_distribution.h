#pragma once
// `mpirun -n N compopt sweep CONFIG`: the scenarios spread over N MPI ranks, scenario i on rank
// i % N. Each rank simulates its share in forked processes (--jobs at a time) and then sends
// its results to rank 0, which writes the one sweep.csv, identical to a serial run's.
//
// The MPI launcher is recognised by the variables it sets for every rank (Open MPI:
// OMPI_COMM_WORLD_SIZE/RANK; MPICH and Intel MPI: PMI_SIZE/RANK), so a plain `compopt sweep`
// never initialises MPI, and MPI is initialised only after the forking is over (no fork of an
// MPI process). A world of one rank runs as a plain sweep. A rank whose scenario fails exits
// with the error before it initialises MPI, and the launcher ends the job; a failure while
// gathering ends it with MPI_Abort (real_backend/mpi/mpi_world.h): no rank waits forever.

#include <cstddef>
#include <string>
#include <vector>

namespace compopt::cli {

struct SweepWorld {
  int rank = 0;
  int size = 1;        // 1: a plain run (or an MPI job of one rank): no MPI
  int local_size = 1;  // ranks of the job on this machine (share its cores)
  std::string source;  // the variable that gave `size` (messages), empty for a plain run
};

// The launcher's world from the environment; a plain run when no launcher variable is set.
// Throws InvalidArgument for a malformed value (naming the variable).
SweepWorld sweep_world_from_env();

// Throws InvalidArgument when world.size > 1 and this build has no MPI backend.
void check_sweep_world(const SweepWorld& world);

// Scenario indexes of world.rank among `count`, ascending.
std::vector<size_t> scenarios_of_rank(size_t count, const SweepWorld& world);

// Processes at once on each rank: `requested` if > 0, else this machine's cores divided
// among its local ranks (at least 1).
int jobs_per_rank(int requested, const SweepWorld& world);

// Initialises MPI, sends `mine` (the results of scenarios_of_rank, in that order) to rank 0 and
// finalises MPI. Returns on rank 0 the `count` results in scenario order, elsewhere nothing.
// An MPI world whose rank or size differs from `world` ends the job with MPI_Abort.
std::vector<std::string> gather_results(const SweepWorld& world, size_t count,
                                        const std::vector<std::string>& mine);

}  // namespace compopt::cli
