#include "real_backend/cuda/hybrid_world.h"

#include "real_backend/tcp/tcp_world.h"

namespace compopt::cuda {

void run_hybrid_rank(const tcp::TcpOptions& options, const HybridFn& fn) {
  const int device = default_device();  // fails before any connection when there is no GPU
  tcp::run_tcp_rank(options, [&](Communicator& comm) {
    GpuContext gpu(device);
    RankGpuScope scope(gpu);
    fn(comm, gpu);
  });
}

void run_hybrid_threads(int ranks, int ranks_per_node, const HybridFn& fn, tcp::TcpOptions base) {
  const int devices = device_count();
  if (devices == 0) throw CudaError(unavailable_reason());
  tcp::run_tcp_threads(
      ranks, ranks_per_node,
      [&](Communicator& comm) {
        GpuContext gpu(comm.rank() % devices);
        RankGpuScope scope(gpu);
        fn(comm, gpu);
      },
      std::move(base));
}

}  // namespace compopt::cuda
