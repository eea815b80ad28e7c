#include "real_backend/hybrid/hybrid_communicator.h"

#include "core/comm/collectives/hierarchical_allreduce.h"
#include "real_backend/cuda_kernels/gpu_compressed_allreduce.h"
#include "real_backend/cuda_kernels/gpu_hierarchical_allreduce.h"

namespace compopt::hybrid {

HybridCommunicator::HybridCommunicator(Transport& transport, cuda::GpuContext& gpu)
    : Communicator(transport), gpu_(gpu) {}

void HybridCommunicator::compressed_allreduce(std::span<float> data, const Compressor& compressor,
                                              CompressedAllreduceState& state, RandomKey key) {
  if (!cuda::codec_for(compressor)) {
    Communicator::compressed_allreduce(data, compressor, state, key);
    return;
  }
  cuda::compressed_allreduce_mean(gpu_, *this, data, compressor, state, key);
}

void HybridCommunicator::hierarchical_compressed_allreduce(
    HierarchicalGroups& groups, std::span<float> data, const Compressor& compressor,
    CompressedAllreduceState& state, RandomKey key, const ShardTransform& transform) {
  if (!cuda::codec_for(compressor)) {
    Communicator::hierarchical_compressed_allreduce(groups, data, compressor, state, key,
                                                    transform);
    return;
  }
  cuda::hierarchical_compressed_allreduce_mean(gpu_, groups, data, compressor, state, key,
                                               transform);
}

}  // namespace compopt::hybrid
