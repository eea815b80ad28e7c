#pragma once
// The backends the conformance suite runs on. Every backend that is built
// registers here (Local always; Sim, TCP when their libraries exist; hybrid when CUDA is
// built and a device is present), so one suite checks them all against the same
// independent references. (MPI runs the same checks under mpirun, NCCL needs one GPU per
// rank: tests/real_backend/.)

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/comm/communicator.h"

namespace compopt::testing {

using CompressedAllreduceFn = std::function<void(Communicator&, std::span<float>, const Compressor&,
                                                 CompressedAllreduceState&, RandomKey)>;
using HierarchicalAllreduceFn =
    std::function<void(HierarchicalGroups&, std::span<float>, const Compressor&,
                       CompressedAllreduceState&, RandomKey, const ShardTransform&)>;

struct Backend {
  std::string name;
  // Runs fn on `ranks` ranks (node = rank / ranks_per_node; 0 = one node) and
  // rethrows the first failure.
  std::function<void(int ranks, int ranks_per_node, const std::function<void(Communicator&)>& fn)>
      run;
  // The backend's compressed collectives, called from inside `run`: the core functions, or an
  // implementation with the same contract (hybrid: the CUDA kernels for sign and binary).
  CompressedAllreduceFn compressed_allreduce = [](Communicator& comm, std::span<float> data,
                                                  const Compressor& c,
                                                  CompressedAllreduceState& state, RandomKey key) {
    compressed_allreduce_mean(comm, data, c, state, key);
  };
  HierarchicalAllreduceFn hierarchical_allreduce =
      [](HierarchicalGroups& groups, std::span<float> data, const Compressor& c,
         CompressedAllreduceState& state, RandomKey key, const ShardTransform& transform) {
        hierarchical_compressed_allreduce_mean(groups, data, c, state, key, transform);
      };
};

const std::vector<Backend>& conformance_backends();

}  // namespace compopt::testing
