#pragma once
// Traffic records of the NCCL collectives. NCCL's own protocols are not observable, so an
// NcclCommunicator counts what the CPU algorithms of core/comm/collectives send for the same call
// (ring reduce-scatter/allgather/allreduce, pairwise all-to-all, binomial broadcast,
// dissemination barrier): byte and message counts, and inter-node bytes, agree across backends.

#include <cstddef>

#include "core/comm/communicator.h"

namespace compopt::nccl {

void record_ring_allreduce(Communicator& comm, size_t elements, size_t element_bytes);
void record_ring_reduce_scatter(Communicator& comm, size_t block_elements, size_t element_bytes);
void record_ring_allgather(Communicator& comm, size_t block_bytes);
void record_pairwise_alltoall(Communicator& comm, size_t block_bytes);
void record_binomial_broadcast(Communicator& comm, size_t bytes, int root);
void record_dissemination_barrier(Communicator& comm);

}  // namespace compopt::nccl
