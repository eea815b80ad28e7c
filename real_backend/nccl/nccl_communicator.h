#pragma once
// NcclCommunicator: the Communicator of one rank of an NCCL world (one GPU per rank; NCCL refuses
// two ranks of a communicator on one device: use hybrid mode, real_backend/hybrid/hybrid_world.h,
// to run many ranks on one GPU).
//
// Native NCCL collectives: allreduce (fp32 sum; the mean divides the sum by n on the GPU),
// reduce-scatter, allgather, broadcast, all-to-all (grouped send/recv), barrier (a one-element
// allreduce), split (ncclCommSplit, with the group order and context ids of Communicator::split).
// Spans may point to device memory, used in place, or to host memory, staged through the rank's
// GpuContext. Results are identical on every rank, but NCCL's summation order is not the ring
// order of the CPU collectives, so sums may differ from other backends in the last bits.
// Falls back to the CPU ring over the bootstrap transport for fp16 wire precision (NCCL's half
// reduction rounds partial sums differently). Point-to-point send/recv also use that transport.
// Traffic counters record what the CPU algorithms would send for the same call (ring_traffic.h).
// The compressed allreduces (flat and hierarchical) run the CUDA kernels of
// real_backend/cuda_kernels on gpu() for sign and binary, the CPU algorithm for other
// compressors.
//
// Every call waits for its NCCL operation; a failed or timed-out operation (op_timeout_s) aborts
// the NCCL communicator and throws CommError naming the operation and NCCL's error. As with every
// Communicator, all ranks must call collectives in the same order with matching sizes; NCCL
// cannot detect mismatched sizes (a mismatch may hang until the timeout).

#include <memory>
#include <span>
#include <vector>

#include "core/comm/communicator.h"
#include "real_backend/cuda_kernels/device_exchange.h"
#include "real_backend/cuda_kernels/gpu_context.h"

struct ncclComm;  // nccl.h's ncclComm_t is ncclComm*

namespace compopt::tcp {
class TcpTransport;
}

namespace compopt::nccl {

class NcclCommunicator : public Communicator, public cuda::AcceptsDeviceBuffers {
 public:
  // The world group of `transport` (the bootstrap transport: its world rank is the NCCL rank).
  // Takes ownership of `comm` (destroyed with this object).
  NcclCommunicator(Transport& transport, std::shared_ptr<cuda::GpuContext> gpu, ncclComm* comm,
                   double op_timeout_s = 300.0);
  ~NcclCommunicator() override;

  void allreduce(std::span<float> data, ReduceOp op = ReduceOp::kSum,
                 WirePrecision precision = WirePrecision::kFp32) override;
  void reduce_scatter(std::span<const float> in, std::span<float> out,
                      ReduceOp op = ReduceOp::kSum) override;
  void allgather(std::span<const std::byte> mine, std::span<std::byte> all) override;
  void alltoall(std::span<const std::byte> send_data, std::span<std::byte> recv_data) override;
  void broadcast(std::span<std::byte> data, int root) override;
  void barrier() override;
  std::unique_ptr<Communicator> split(int color, int key) override;
  void compressed_allreduce(std::span<float> data, const Compressor& compressor,
                            CompressedAllreduceState& state, RandomKey key) override;
  void hierarchical_compressed_allreduce(HierarchicalGroups& groups, std::span<float> data,
                                         const Compressor& compressor,
                                         CompressedAllreduceState& state, RandomKey key,
                                         const ShardTransform& transform = {}) override;

  cuda::GpuContext& gpu() { return *gpu_; }
  ncclComm* nccl_comm() const { return comm_; }

 private:
  NcclCommunicator(Transport& transport, std::vector<int> members, uint32_t context,
                   std::shared_ptr<RankState> state, std::shared_ptr<cuda::GpuContext> gpu,
                   ncclComm* comm, double op_timeout_s);

  // Waits for the queued NCCL work, polling NCCL's asynchronous error, the bootstrap TCP
  // mesh's liveness (a peer that died or stopped responding aborts the communicator at
  // once: NCCL itself would wait for it forever) and the deadline.
  void wait(const char* op);
  // Aborts the NCCL communicator when the bootstrap transport recorded a failure, rethrowing it.
  void check_bootstrap();

  std::shared_ptr<RankState> state_;  // shared with the world and every split of this rank
  std::shared_ptr<cuda::GpuContext> gpu_;
  ncclComm* comm_ = nullptr;
  double op_timeout_s_;
  const tcp::TcpTransport* bootstrap_;  // the transport when it is TCP's, else null
};

}  // namespace compopt::nccl
