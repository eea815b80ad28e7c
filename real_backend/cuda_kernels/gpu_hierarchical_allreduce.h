#pragma once
// Hierarchical compressed allreduce of [BIR] §4 (docs/algorithms.md; core/comm/collectives/
// hierarchical_allreduce.h) with the CUDA kernels: intra-node reduce-scatter (fp32 mean, through
// the communicator), the caller's shard transform, the GPU compressed allreduce across nodes
// (gpu_compressed_allreduce.h), intra-node all-gather of the compressed messages and the decode
// on the GPU. With host-memory communicators (hybrid mode) the result, error feedback and traffic
// are bit-identical to the CPU function; with NCCL the reduce-scatter is NCCL's (a different
// summation order), the rest is the same.

#include <cstddef>
#include <functional>
#include <span>

#include "core/comm/collectives/hierarchical_allreduce.h"
#include "real_backend/cuda_kernels/gpu_compressed_allreduce.h"

namespace compopt::cuda {

// Runs on this rank's shard (device pointer, `len` floats) after the intra-node mean; `offset`
// is the shard's first element in the padded vector. May rewrite the shard (on gpu's stream or
// synchronously).
using DeviceShardTransform = std::function<void(float* shard, size_t len, size_t offset)>;

// Device EF sized for this rank's shard: hierarchical_state(d, groups) on the GPU.
GpuCompressedState gpu_hierarchical_state(GpuContext& gpu, size_t d,
                                          const HierarchicalGroups& groups);

// data: device pointer to d floats, replaced by the hierarchical compressed mean over all ranks.
void hierarchical_compressed_allreduce_mean(GpuContext& gpu, HierarchicalGroups& groups,
                                            float* data, size_t d, Codec codec, DeviceEf ef,
                                            RandomKey key,
                                            const DeviceShardTransform& transform = {});

// Drop-in for the CPU function on host data and host state (copied to the GPU and back); the
// host transform sees a host copy of the shard. Sign and binary only (InvalidArgument otherwise).
void hierarchical_compressed_allreduce_mean(GpuContext& gpu, HierarchicalGroups& groups,
                                            std::span<float> data, const Compressor& compressor,
                                            CompressedAllreduceState& state, RandomKey key,
                                            const ShardTransform& transform = {});

}  // namespace compopt::cuda
