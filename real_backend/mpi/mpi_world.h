#pragma once
// Entry point of the MPI backend for programs started by mpirun:
//
//   compopt::mpi::run_mpi([](Communicator& comm) { ... });
//
// Initializes MPI if nobody did (MPI_THREAD_FUNNELED), runs fn on the world
// Communicator over an MpiTransport, and finalizes MPI if it initialized it.
// If fn throws, the error is printed as "compopt mpi rank R failed: ..." and
// MPI_Abort ends the whole job (mpirun stops every rank: no rank hangs); with
// abort_on_error = false it is rethrown instead (MPI is left initialized).

#include <functional>

#include "core/comm/communicator.h"
#include "real_backend/mpi/mpi_transport.h"

namespace compopt::mpi {

// op_timeout_s from COMPOPT_MPI_TIMEOUT_S, gpus_per_node from COMPOPT_GPUS_PER_NODE
// (or its older name COMPOPT_RANKS_PER_NODE),
// pipeline_bytes from COMPOPT_MPI_PIPELINE_BYTES.
MpiOptions mpi_options_from_env(MpiOptions defaults = {});

void run_mpi(const std::function<void(Communicator&)>& fn, MpiOptions options = {},
             bool abort_on_error = true);

}  // namespace compopt::mpi
