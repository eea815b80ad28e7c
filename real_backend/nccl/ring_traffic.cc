#include "real_backend/nccl/ring_traffic.h"

#include "core/comm/collectives/block_partition.h"

namespace compopt::nccl {
namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

void record_to(Communicator& comm, int dst, size_t bytes) {
  comm.traffic().record(bytes, comm.node_of(dst) != comm.node());
}

}  // namespace

void record_ring_allreduce(Communicator& comm, size_t elements, size_t element_bytes) {
  const int n = comm.size(), r = comm.rank();
  const BlockPartition part{elements, n};
  for (int s = 0; s < n - 1; ++s) {
    record_to(comm, mod(r + 1, n), part.size(mod(r - 1 - s, n)) * element_bytes);  // reduce-scatter
  }
  for (int s = 0; s < n - 1; ++s) {
    record_to(comm, mod(r + 1, n), part.size(mod(r - s, n)) * element_bytes);  // allgather
  }
}

void record_ring_reduce_scatter(Communicator& comm, size_t block_elements, size_t element_bytes) {
  for (int s = 0; s < comm.size() - 1; ++s)
    record_to(comm, mod(comm.rank() + 1, comm.size()), block_elements * element_bytes);
}

void record_ring_allgather(Communicator& comm, size_t block_bytes) {
  for (int s = 0; s < comm.size() - 1; ++s)
    record_to(comm, mod(comm.rank() + 1, comm.size()), block_bytes);
}

void record_pairwise_alltoall(Communicator& comm, size_t block_bytes) {
  for (int k = 1; k < comm.size(); ++k)
    record_to(comm, (comm.rank() + k) % comm.size(), block_bytes);
}

void record_binomial_broadcast(Communicator& comm, size_t bytes, int root) {
  const int n = comm.size();
  const int relative = mod(comm.rank() - root, n);
  int mask = 1;
  while (mask < n) {
    if (relative & mask) break;
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < n) record_to(comm, (relative + mask + root) % n, bytes);
  }
}

void record_dissemination_barrier(Communicator& comm) {
  for (int distance = 1; distance < comm.size(); distance *= 2)
    record_to(comm, (comm.rank() + distance) % comm.size(), 0);
}

}  // namespace compopt::nccl
