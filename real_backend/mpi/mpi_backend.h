#pragma once
// Registers the MPI backend ("mpi": one rank per process started by mpirun, mpi_world.h) in a
// BackendRegistry. Launched ranks only; the environment settings of mpi_options_from_env come
// first, then every field WorldOptions sets. A failing rank ends the job with MPI_Abort.

#include "core/comm/backend.h"

namespace compopt::mpi {

void register_mpi_backend(BackendRegistry& registry);

}  // namespace compopt::mpi
