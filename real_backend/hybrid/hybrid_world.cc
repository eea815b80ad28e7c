#include "real_backend/hybrid/hybrid_world.h"

#include "real_backend/tcp/tcp_world.h"

namespace compopt::hybrid {
namespace {

// The rank's GPU context and HybridCommunicator over the TCP world's transport.
void run_on_device(Communicator& tcp_world, int device, const HybridFn& fn) {
  cuda::GpuContext gpu(device);
  HybridCommunicator world(tcp_world.transport(), gpu);
  fn(world);
}

}  // namespace

void run_hybrid_rank(const tcp::TcpOptions& options, const HybridFn& fn) {
  const int device = cuda::default_device();  // fails before any connection when there is no GPU
  tcp::run_tcp_rank(options, [&](Communicator& comm) { run_on_device(comm, device, fn); });
}

void run_hybrid_threads(int ranks, int gpus_per_node, const HybridFn& fn, tcp::TcpOptions base) {
  const int devices = cuda::device_count();
  if (devices == 0) throw cuda::CudaError(cuda::unavailable_reason());
  tcp::run_tcp_threads(
      ranks, gpus_per_node,
      [&](Communicator& comm) { run_on_device(comm, comm.rank() % devices, fn); }, std::move(base));
}

}  // namespace compopt::hybrid
