#include "real_backend/cuda_kernels/gpu_hierarchical_allreduce.h"

#include <string>
#include <vector>

#include "core/util/error.h"
#include "real_backend/cuda_kernels/device_exchange.h"

namespace compopt::cuda {

GpuCompressedState gpu_hierarchical_state(GpuContext& gpu, size_t d,
                                          const HierarchicalGroups& groups) {
  const size_t padded = hierarchical_padded_length(d, groups.nodes(), groups.gpus_per_node());
  return GpuCompressedState(gpu, padded / static_cast<size_t>(groups.gpus_per_node()),
                            groups.nodes());
}

void hierarchical_compressed_allreduce_mean(GpuContext& gpu, HierarchicalGroups& groups,
                                            float* data, size_t d, Codec codec, DeviceEf ef,
                                            RandomKey key, const DeviceShardTransform& transform) {
  Communicator& intra = *groups.intra;
  Communicator& inter = *groups.inter;
  TrafficCounters::Scope scope(intra.traffic(), "hierarchical_allreduce");
  const int nodes = groups.nodes(), per_node = groups.gpus_per_node();
  const size_t padded = hierarchical_padded_length(d, nodes, per_node);
  const size_t shard_len = padded / static_cast<size_t>(per_node);
  const size_t chunk = shard_len / static_cast<size_t>(nodes);

  // 1. Intra-node mean of the zero-padded vector: local rank r owns shard r.
  auto* full = static_cast<float*>(gpu.device_scratch(Slot::kFull, padded * sizeof(float)));
  auto* shard = static_cast<float*>(gpu.device_scratch(Slot::kShard, shard_len * sizeof(float)));
  gpu.zero(full, padded * sizeof(float));
  gpu.copy(full, data, d * sizeof(float));
  device_reduce_scatter(gpu, intra, full, shard, shard_len, ReduceOp::kMean);

  // 2. Caller's transform, then the compressed allreduce across nodes.
  const size_t offset = static_cast<size_t>(intra.rank()) * shard_len;
  if (transform) transform(shard, shard_len, offset);
  key.index_offset += offset;
  const auto messages = compressed_allreduce_messages(gpu, inter, shard, shard_len, codec, ef, key);

  // 3. Share the compressed shards within the node and decode everything.
  auto* all = static_cast<std::byte*>(
      gpu.device_scratch(Slot::kGathered, messages.size() * static_cast<size_t>(per_node)));
  device_allgather(gpu, intra, messages.data(), messages.size(), all);
  decode_messages(gpu, codec, all, static_cast<size_t>(nodes) * static_cast<size_t>(per_node),
                  chunk, data, d);
}

void hierarchical_compressed_allreduce_mean(GpuContext& gpu, HierarchicalGroups& groups,
                                            std::span<float> data, const Compressor& compressor,
                                            CompressedAllreduceState& state, RandomKey key,
                                            const ShardTransform& transform) {
  const Codec codec = require_codec(compressor);
  gpu.activate();
  const CompressedAllreduceState expected = hierarchical_state(data.size(), groups);
  if (state.worker.size() != expected.worker.size() ||
      state.server.size() != expected.server.size()) {
    throw InvalidArgument("GPU hierarchical allreduce: error-feedback state holds " +
                          std::to_string(state.worker.size()) + " worker / " +
                          std::to_string(state.server.size()) + " server elements, expected " +
                          std::to_string(expected.worker.size()) + " / " +
                          std::to_string(expected.server.size()));
  }
  const StagedOnDevice staged = stage_on_device(gpu, data, state);
  DeviceShardTransform on_host;
  if (transform) {
    on_host = [&](float* shard, size_t len, size_t offset) {
      std::vector<float> host(len);
      gpu.copy(host.data(), shard, len * sizeof(float));
      gpu.synchronize();
      transform(host, offset);
      gpu.copy(shard, host.data(), len * sizeof(float));
      gpu.synchronize();
    };
  }
  hierarchical_compressed_allreduce_mean(gpu, groups, staged.data, data.size(), codec, staged.ef,
                                         key, on_host);
  unstage_to_host(gpu, staged, data, state);
}

}  // namespace compopt::cuda
