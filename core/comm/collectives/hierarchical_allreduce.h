#pragma once
// Hierarchical compressed allreduce of [BIR] §4 (docs/algorithms.md) for N nodes x m ranks
// per node:
//  1. intra-node reduce-scatter (fp32, mean): local rank r owns shard r (length D/m);
//  2. the caller's ShardTransform runs on the shard (Birder updates its state and
//     forms m/b there), then the compressed allreduce runs over `inter` (the ranks
//     with the same local index) on the shard, with the shard's own EF state;
//  3. intra-node all-gather of the compressed server messages (bits + scales, not
//     floats); every rank decodes the full vector.
// Inter-node bytes per node are about 2(N-1)/N * D/8, independent of m.
// D = hierarchical_padded_length(d, N, m), a multiple of 8*N*m.

#include <cstddef>
#include <functional>
#include <memory>
#include <span>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/communicator.h"

namespace compopt {

// The two sub-communicators of the scheme, split once and reused.
struct HierarchicalGroups {
  std::unique_ptr<Communicator> intra;  // ranks of my node, ordered by world rank
  std::unique_ptr<Communicator> inter;  // ranks with my local index, one per node

  // Collective over `world`. Throws InvalidArgument unless every node hosts the
  // same number of ranks.
  static HierarchicalGroups split(Communicator& world);
  int nodes() const { return inter->size(); }
  int gpus_per_node() const { return intra->size(); }
};

size_t hierarchical_padded_length(size_t d, int nodes, int gpus_per_node);

// ShardTransform (communicator.h) runs on this rank's shard after the intra-node
// averaging; `offset` is the shard's first element in the padded vector. It may
// rewrite the shard in place.

// State of one rank: EF for its shard (length D/m worker, D/(m N) server).
CompressedAllreduceState hierarchical_state(size_t d, const HierarchicalGroups& groups);

// Replaces data (length d) by the hierarchical compressed mean over all ranks.
void hierarchical_compressed_allreduce_mean(HierarchicalGroups& groups, std::span<float> data,
                                            const Compressor& compressor,
                                            CompressedAllreduceState& state, RandomKey key,
                                            const ShardTransform& transform = {});

}  // namespace compopt
