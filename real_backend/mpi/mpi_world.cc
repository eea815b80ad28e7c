#include "real_backend/mpi/mpi_world.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "core/util/error.h"

namespace compopt::mpi {
namespace {

long env_long(const char* name, long lo, long hi, long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < lo || value > hi) {
    throw InvalidArgument(
        fmt::format("{}='{}': expected an integer in {}..{}", name, text, lo, hi));
  }
  return value;
}

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
  o.op_timeout_s = static_cast<double>(
      env_long("COMPOPT_MPI_TIMEOUT_S", 1, 86400, static_cast<long>(o.op_timeout_s)));
  o.ranks_per_node =
      static_cast<int>(env_long("COMPOPT_RANKS_PER_NODE", 0, 1 << 20, o.ranks_per_node));
  o.pipeline_bytes = static_cast<size_t>(env_long("COMPOPT_MPI_PIPELINE_BYTES", 0, 1L << 30,
                                                  static_cast<long>(o.pipeline_bytes)));
  return o;
}

void run_mpi(const std::function<void(Communicator&)>& fn, MpiOptions options,
             bool abort_on_error) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    check_real_mpi();
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      throw CommError("mpi: MPI_Init_thread failed");
    }
  }
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    MpiTransport transport(MPI_COMM_WORLD, options);
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
