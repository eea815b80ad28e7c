#pragma once
// HybridCommunicator: the world Communicator of a hybrid rank (hybrid_world.h): every
// collective moves host bytes over the rank's TCP transport like a plain Communicator, and the
// compressed allreduces run the CUDA kernels (real_backend/cuda_kernels) on the rank's GPU for
// the compressors that have kernels (sign, binary): bit-identical results, error feedback and
// traffic to the CPU algorithm; other compressors run the CPU algorithm.
// Sub-communicators from split() are plain Communicators (CPU compressed allreduce); the
// hierarchical scheme called on this communicator runs its inter-node part on the GPU.

#include "core/comm/communicator.h"
#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::hybrid {

class HybridCommunicator : public Communicator {
 public:
  // The world group of `transport`; `gpu` must outlive this communicator.
  HybridCommunicator(Transport& transport, cuda::GpuContext& gpu);

  void compressed_allreduce(std::span<float> data, const Compressor& compressor,
                            CompressedAllreduceState& state, RandomKey key) override;
  void hierarchical_compressed_allreduce(HierarchicalGroups& groups, std::span<float> data,
                                         const Compressor& compressor,
                                         CompressedAllreduceState& state, RandomKey key,
                                         const ShardTransform& transform = {}) override;

  cuda::GpuContext& gpu() { return gpu_; }

 private:
  cuda::GpuContext& gpu_;
};

}  // namespace compopt::hybrid
