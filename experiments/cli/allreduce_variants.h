#pragma once
// The allreduce variants that `compopt comm-bench` times and `compopt collectives` compares:
// one registry, in the order both list them. Each reduces a rank's vector in place to (an
// estimate of) the mean over ranks through the communicator, so every backend runs its own
// version (the CUDA kernels of the compressed ones on hybrid and nccl).
//
//   allreduce-fp32, allreduce-fp16      ring allreduce, fp32 or fp16 on the wire
//   compressed-sign, compressed-binary  compressed allreduce with error feedback
//                                       (1-bit Adam's sign, Birder's binary compressor)
//   hierarchical-sign                   hierarchical compressed allreduce, sign: within each
//                                       node, then across nodes (every node the same size)
//
// `make` runs on every rank and returns a fresh call with its own state (error feedback,
// sub-communicators). The state is built on the first call and again whenever the vector's
// length changes; the compressed variants draw their randomness from
// RandomKey{.seed = kAllreduceVariantSeed, .step = step}.

#include <cstdint>
#include <functional>
#include <vector>

#include "core/comm/communicator.h"
#include "core/util/registry.h"

namespace compopt::cli {

inline constexpr uint64_t kAllreduceVariantSeed = 7;

// One call on x (in place) at `step`, with the state kept across calls.
using AllreduceCall = std::function<void(Communicator&, std::vector<float>&, uint64_t step)>;

struct AllreduceVariant : RegistryEntry {
  std::function<AllreduceCall(Communicator&)> make;  // collective: every rank calls it
  // Copies of one message each rank holds at once: the peak resident size over the ranks'
  // vectors, measured with /usr/bin/time -v (4 ranks x 256 MB, local and sim), rounded up.
  // comm-bench's host-memory check (experiments/scenario/host_memory.h) uses it.
  int peak_copies = 0;
};

const Registry<AllreduceVariant>& allreduce_variants();

}  // namespace compopt::cli
