#pragma once
// Ring reduce-scatter on equal blocks: rank r receives the reduction of block r.
// Each rank sends (n-1) blocks.

#include <span>

#include "core/comm/communicator.h"
#include "core/comm/reduce_op.h"

namespace compopt {

// in.size() == comm.size() * out.size() (InvalidArgument otherwise).
void ring_reduce_scatter(Communicator& comm, std::span<const float> in, std::span<float> out,
                         ReduceOp op);

}  // namespace compopt
