#include "real_backend/nccl/nccl_world.h"

#include <fmt/format.h>
#include <nccl.h>

#include <memory>
#include <span>

#include "core/util/error.h"
#include "real_backend/cuda_kernels/gpu_context.h"
#include "real_backend/nccl/nccl_communicator.h"
#include "real_backend/nccl/nccl_error.h"
#include "real_backend/tcp/tcp_world.h"

namespace compopt::nccl {
namespace {

// On the bootstrap TCP world: share rank 0's ncclUniqueId, join the NCCL world on `device`.
void run_on_device(Communicator& tcp_world, int device, double op_timeout_s,
                   const std::function<void(Communicator&)>& fn) {
  auto gpu = std::make_shared<cuda::GpuContext>(device);
  ncclUniqueId id{};
  if (tcp_world.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  tcp_world.broadcast(std::as_writable_bytes(std::span(&id, 1)), 0);
  ncclComm_t comm = nullptr;
  check_nccl(ncclCommInitRank(&comm, tcp_world.size(), id, tcp_world.rank()),
             fmt::format("ncclCommInitRank (rank {} of {} on device {})", tcp_world.rank(),
                         tcp_world.size(), device)
                 .c_str());
  NcclCommunicator world(tcp_world.transport(), gpu, comm, op_timeout_s);
  fn(world);
}

}  // namespace

void run_nccl_rank(const tcp::TcpOptions& options, const std::function<void(Communicator&)>& fn) {
  const int device = cuda::default_device();  // fails before any connection when there is no GPU
  tcp::run_tcp_rank(
      options, [&](Communicator& comm) { run_on_device(comm, device, options.op_timeout_s, fn); });
}

void run_nccl_threads(int ranks, int gpus_per_node, const std::function<void(Communicator&)>& fn,
                      tcp::TcpOptions base) {
  const int devices = cuda::device_count();
  if (devices == 0) throw cuda::CudaError(cuda::unavailable_reason());
  if (ranks > devices) {
    throw InvalidArgument(
        fmt::format("nccl threads: {} ranks on {} CUDA devices, expected at most one rank per "
                    "device (NCCL refuses two ranks on one GPU; use the hybrid backend)",
                    ranks, devices));
  }
  const double timeout = base.op_timeout_s;
  tcp::run_tcp_threads(
      ranks, gpus_per_node,
      [&](Communicator& comm) { run_on_device(comm, comm.rank(), timeout, fn); }, std::move(base));
}

std::string nccl_version() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) return "unknown";
  // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
  return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
}

}  // namespace compopt::nccl
