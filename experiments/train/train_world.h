#pragma once
// Where `compopt train` finds its ranks on a backend that runs one rank per
// process (tcp, hybrid and nccl under `compopt launch -n N`, mpi under
// `mpirun -n N`): this process's rank and the world size, read from the
// launcher's environment before the world is joined, so that every rank can
// resolve and check the configuration (run.ranks) on its own and fail with
// exit code 2 without waiting for its peers.
//
//   tcp, hybrid, nccl   RANK, WORLD_SIZE (set by compopt launch)
//   mpi                 OMPI_COMM_WORLD_RANK/SIZE (Open MPI) or PMI_RANK/PMI_SIZE
//                       (MPICH, Intel MPI)
//
// tcp and hybrid without those variables run run.ranks in-process ranks
// (threads) instead; mpi and nccl without them are refused, and so are local and
// sim started as one of several launched processes (WORLD_SIZE > 1), where every
// process would train the whole run into the same run directory.

#include <optional>
#include <string>

namespace compopt::cli {

struct LaunchedRank {
  int rank = 0;
  int world_size = 1;
};

// This process's place in the launched world of `backend`, or nullopt when the
// backend runs its ranks inside this process here (local, sim; tcp and hybrid
// without a launcher environment). Throws InvalidArgument for mpi or nccl
// without a launcher environment (naming the command that starts one), for local
// or sim under a launcher, and for unparsable or inconsistent variables.
std::optional<LaunchedRank> launched_rank(const std::string& backend);

}  // namespace compopt::cli
