#include "real_backend/mpi/mpi_backend.h"

#include <fmt/format.h>

#include "core/util/error.h"
#include "real_backend/mpi/mpi_world.h"

namespace compopt::mpi {
namespace {

class MpiBackend : public Backend {
 public:
  std::string available() const override { return ""; }

  void run(const WorldOptions& options, const WorldFn& fn) const override {
    if (!options.extras.empty()) {
      throw InvalidArgument(fmt::format("backend 'mpi': unknown setting '{}', expected none",
                                        options.extras.begin()->first));
    }
    MpiOptions mpi = mpi_options_from_env();
    if (options.gpus_per_node > 0) mpi.gpus_per_node = options.gpus_per_node;
    if (options.op_timeout_s) mpi.op_timeout_s = *options.op_timeout_s;
    if (options.pipeline_bytes) mpi.pipeline_bytes = *options.pipeline_bytes;
    run_mpi(fn, mpi);
  }
};

}  // namespace

void register_mpi_backend(BackendRegistry& registry) {
  BackendEntry entry;
  entry.name = "mpi";
  entry.help = "one rank per process over MPI point-to-point (mpirun)";
  entry.traits = {.in_process = false, .launched = true, .trains = true};
  entry.backend = std::make_shared<MpiBackend>();
  registry.add(std::move(entry));
}

}  // namespace compopt::mpi
