#include "real_backend/nccl/nccl_backend.h"

#include "real_backend/cuda_kernels/gpu_context.h"
#include "real_backend/nccl/nccl_world.h"
#include "real_backend/tcp/tcp_backend.h"

namespace compopt::nccl {
namespace {

class NcclBackend : public Backend {
 public:
  // Empty with a device, else "no CUDA device: <the CUDA runtime's words>".
  std::string available() const override { return cuda::unavailable_reason(); }

  void run(const WorldOptions& options, const WorldFn& fn) const override {
    run_nccl_rank(tcp::tcp_options_for(options), fn);
  }
};

}  // namespace

void register_nccl_backend(BackendRegistry& registry) {
  BackendEntry entry;
  entry.name = "nccl";
  entry.help = "one GPU per rank, NCCL collectives and the CUDA compressed allreduce";
  entry.traits = {.in_process = false, .launched = true, .trains = true};
  entry.backend = std::make_shared<NcclBackend>();
  registry.add(std::move(entry));
}

}  // namespace compopt::nccl
