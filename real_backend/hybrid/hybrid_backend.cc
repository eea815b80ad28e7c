#include "real_backend/hybrid/hybrid_backend.h"

#include "real_backend/cuda_kernels/gpu_context.h"
#include "real_backend/hybrid/hybrid_world.h"
#include "real_backend/tcp/tcp_backend.h"

namespace compopt::hybrid {
namespace {

class HybridBackend : public Backend {
 public:
  // Empty with a device, else "no CUDA device: <the CUDA runtime's words>".
  std::string available() const override { return cuda::unavailable_reason(); }

  void run(const WorldOptions& options, const WorldFn& fn) const override {
    const tcp::TcpOptions tcp = tcp::tcp_options_for(options);
    const HybridFn body = [&fn](HybridCommunicator& comm) { fn(comm); };
    if (options.ranks > 0) {
      run_hybrid_threads(options.ranks, options.gpus_per_node, body, tcp);
    } else {
      run_hybrid_rank(tcp, body);
    }
  }
};

}  // namespace

void register_hybrid_backend(BackendRegistry& registry) {
  BackendEntry entry;
  entry.name = "hybrid";
  entry.help = "TCP ranks running the compression kernels on shared GPUs";
  entry.traits = {.in_process = true, .launched = true, .trains = true};
  entry.backend = std::make_shared<HybridBackend>();
  registry.add(std::move(entry));
}

}  // namespace compopt::hybrid
