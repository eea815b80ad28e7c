#pragma once
// Ring allreduce (reduce-scatter then allgather around the ring; docs/algorithms.md).
// Each rank sends 2(n-1)/n * S bytes for a message of S bytes (exactly, when n
// divides the element count). Block b is reduced in the fixed order
// b+1, b+2, ..., b (mod n), so every rank ends bit-identical.

#include <span>

#include "core/comm/communicator.h"
#include "core/comm/reduce_op.h"

namespace compopt {

void ring_allreduce(Communicator& comm, std::span<float> data, ReduceOp op,
                    WirePrecision precision);

// The reduce-scatter half over a balanced BlockPartition of data (in place):
// afterwards block r of `data` on rank r holds the reduction (sum) of block r.
// Other blocks hold partial sums.
void ring_reduce_scatter_in_place(Communicator& comm, std::span<float> data,
                                  WirePrecision precision);

}  // namespace compopt
