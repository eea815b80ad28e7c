#pragma once
// Entry point of the MPI backend for programs started by mpirun:
//
//   compopt::mpi::run_mpi([](Communicator& comm) { ... });
//
// Initializes MPI if nobody did (MPI_THREAD_MULTIPLE), runs fn on the world
// Communicator over an MpiTransport, and finalizes MPI if it initialized it.
// Start-up is bounded (mpi_startup.h): a watchdog ends a rank whose start-up takes over
// options.startup_timeout_s, and a roll call right after MPI_Init_thread names a rank that
// does not answer within options.silence_timeout_s.
// Meanwhile an MpiLiveness thread ends the job within options.silence_timeout_s
// (+ 0.5 s) of a rank that stopped responding, naming it; when MPI provides less
// than MPI_THREAD_MULTIPLE, rank 0 says so on stderr and only op_timeout_s remains.
// If fn throws, the error is printed as "compopt mpi rank R failed: ..." and
// MPI_Abort ends the whole job (mpirun stops every rank: no rank hangs); with
// abort_on_error = false it is rethrown instead (MPI is left initialized).

#include <functional>

#include "core/comm/communicator.h"
#include "real_backend/mpi/mpi_transport.h"

namespace compopt::mpi {

// op_timeout_s from COMPOPT_MPI_TIMEOUT_S, silence_timeout_s from COMPOPT_MPI_SILENCE_S
// (whole seconds, 0 = no liveness thread and no roll call), startup_timeout_s from
// COMPOPT_MPI_STARTUP_S, gpus_per_node from COMPOPT_GPUS_PER_NODE
// (or its older name COMPOPT_RANKS_PER_NODE),
// pipeline_bytes from COMPOPT_MPI_PIPELINE_BYTES.
MpiOptions mpi_options_from_env(MpiOptions defaults = {});

void run_mpi(const std::function<void(Communicator&)>& fn, MpiOptions options = {},
             bool abort_on_error = true);

}  // namespace compopt::mpi
