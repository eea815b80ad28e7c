#include "real_backend/mpi/mpi_world.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string_view>

#include "core/util/env.h"
#include "core/util/error.h"
#include "real_backend/mpi/mpi_liveness.h"
#include "real_backend/mpi/mpi_startup.h"

namespace compopt::mpi {
namespace {

// SimGrid's library also defines the MPI API (SMPI); if it comes first in the
// process's symbol lookup order, MPI calls would reach it and abort.
void check_real_mpi() {
  void* symbol = ::dlsym(RTLD_DEFAULT, "MPI_Init_thread");
  Dl_info info{};
  if (symbol != nullptr && ::dladdr(symbol, &info) != 0 && info.dli_fname != nullptr &&
      std::string_view(info.dli_fname).find("simgrid") != std::string_view::npos) {
    throw CommError(fmt::format(
        "mpi: MPI_Init_thread resolves to {} (SimGrid's SMPI), not the system MPI: link "
        "libmpi before libsimgrid",
        info.dli_fname));
  }
}

}  // namespace

MpiOptions mpi_options_from_env(MpiOptions o) {
  if (const char* v = env_value("COMPOPT_MPI_TIMEOUT_S"))
    o.op_timeout_s = static_cast<double>(parse_env_integer("COMPOPT_MPI_TIMEOUT_S", v, 1, 86400));
  if (const char* v = env_value("COMPOPT_MPI_SILENCE_S"))
    o.silence_timeout_s =
        static_cast<double>(parse_env_integer("COMPOPT_MPI_SILENCE_S", v, 0, 3600));
  if (const char* v = env_value("COMPOPT_MPI_STARTUP_S"))
    o.startup_timeout_s =
        static_cast<double>(parse_env_integer("COMPOPT_MPI_STARTUP_S", v, 1, 86400));
  // COMPOPT_RANKS_PER_NODE: the older name, still accepted (the new one wins).
  for (const char* name : {"COMPOPT_RANKS_PER_NODE", "COMPOPT_GPUS_PER_NODE"})
    if (const char* v = env_value(name))
      o.gpus_per_node = static_cast<int>(parse_env_integer(name, v, 0, 1 << 20));
  if (const char* v = env_value("COMPOPT_MPI_PIPELINE_BYTES"))
    o.pipeline_bytes =
        static_cast<size_t>(parse_env_integer("COMPOPT_MPI_PIPELINE_BYTES", v, 0, 1L << 30));
  return o;
}

namespace {

// The liveness thread, when wanted and MPI allows threads to call it concurrently.
std::unique_ptr<MpiLiveness> start_liveness(const MpiOptions& options, int rank) {
  if (options.silence_timeout_s <= 0) return nullptr;
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "compopt mpi: MPI was initialized without MPI_THREAD_MULTIPLE: no liveness "
                   "thread, a rank that stops responding is only caught by the %.0f s operation "
                   "timeout (COMPOPT_MPI_TIMEOUT_S)\n",
                   options.op_timeout_s);
    }
    return nullptr;
  }
  const double interval = std::min(0.5, options.silence_timeout_s / 4);
  return std::make_unique<MpiLiveness>(MPI_COMM_WORLD, interval, options.silence_timeout_s);
}

}  // namespace

void run_mpi(const std::function<void(Communicator&)>& fn, MpiOptions options,
             bool abort_on_error) {
  const auto [env_rank, env_size] = launcher_rank_and_size();
  StartupWatchdog watchdog(options.startup_timeout_s, env_rank, env_size);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    check_real_mpi();
    watchdog.phase("MPI_Init_thread, which waits for every rank");
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
      throw CommError("mpi: MPI_Init_thread failed");
    }
  }
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    if (options.silence_timeout_s > 0) {
      watchdog.phase("the start-up roll call");
      roll_call(MPI_COMM_WORLD, options.silence_timeout_s);
    }
    watchdog.phase("starting the liveness thread (MPI_Comm_dup)");
    const auto liveness = start_liveness(options, rank);
    watchdog.phase("setting up the transport (MPI_Comm_dup, MPI_Comm_split_type)");
    MpiTransport transport(MPI_COMM_WORLD, options);
    watchdog.done();
    Communicator comm(transport);
    fn(comm);
  } catch (const std::exception& e) {
    if (!abort_on_error) throw;
    std::fprintf(stderr, "compopt mpi rank %d failed: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (!initialized) MPI_Finalize();
}

}  // namespace compopt::mpi
