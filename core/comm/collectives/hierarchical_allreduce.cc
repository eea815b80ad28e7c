#include "core/comm/collectives/hierarchical_allreduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/comm/phase_log.h"
#include "core/util/error.h"

namespace compopt {

HierarchicalGroups HierarchicalGroups::split(Communicator& world) {
  HierarchicalGroups groups;
  groups.intra = world.split(world.node(), world.rank());
  groups.inter = world.split(groups.intra->rank(), world.rank());
  // Every rank checks every node's size, so all fail together on uneven nodes.
  const int mine = groups.intra->size();
  std::vector<int> sizes(static_cast<size_t>(world.size()));
  world.allgather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(sizes)));
  for (int r = 0; r < world.size(); ++r) {
    if (sizes[static_cast<size_t>(r)] != mine) {
      throw InvalidArgument(
          fmt::format("hierarchical allreduce: node {} hosts {} ranks but node {} hosts {}, "
                      "expected the same number "
                      "of ranks on every node",
                      world.node(), mine, world.node_of(r), sizes[static_cast<size_t>(r)]));
    }
  }
  return groups;
}

size_t hierarchical_padded_length(size_t d, int nodes, int gpus_per_node) {
  return compressed_padded_length(d, nodes * gpus_per_node);
}

CompressedAllreduceState hierarchical_state(size_t d, const HierarchicalGroups& groups) {
  const size_t padded = hierarchical_padded_length(d, groups.nodes(), groups.gpus_per_node());
  return CompressedAllreduceState(padded / static_cast<size_t>(groups.gpus_per_node()),
                                  groups.nodes());
}

void hierarchical_compressed_allreduce_mean(HierarchicalGroups& groups, std::span<float> data,
                                            const Compressor& compressor,
                                            CompressedAllreduceState& state, RandomKey key,
                                            const ShardTransform& transform) {
  Communicator& intra = *groups.intra;
  Communicator& inter = *groups.inter;
  TrafficCounters::Scope scope(intra.traffic(), "hierarchical_allreduce");
  const int nodes = groups.nodes(), per_node = groups.gpus_per_node();
  const size_t padded = hierarchical_padded_length(data.size(), nodes, per_node);
  const size_t shard_len = padded / static_cast<size_t>(per_node);
  const size_t chunk = shard_len / static_cast<size_t>(nodes);

  // 1. Intra-node mean: local rank r owns shard r.
  std::vector<float> full(padded, 0.0f), shard(shard_len);
  std::copy(data.begin(), data.end(), full.begin());
  {
    const PhaseScope phase(intra, "intra-node reduce-scatter");
    intra.reduce_scatter(full, shard, ReduceOp::kMean);
  }

  // 2. Caller's transform, then the compressed allreduce across nodes.
  const size_t offset = static_cast<size_t>(intra.rank()) * shard_len;
  if (transform) transform(shard, offset);
  key.index_offset += offset;
  std::vector<std::byte> messages;
  {
    const PhaseScope phase(inter, "inter-node compressed allreduce");
    messages = compressed_allreduce_messages(inter, shard, compressor, state, key);
  }

  // 3. Share the compressed shards within the node and decode everything.
  std::vector<std::byte> all(messages.size() * static_cast<size_t>(per_node));
  {
    const PhaseScope phase(intra, "intra-node all-gather");
    intra.allgather(messages, all);
  }
  decode_server_messages(all, static_cast<size_t>(nodes) * static_cast<size_t>(per_node), chunk,
                         compressor, data);
}

}  // namespace compopt
