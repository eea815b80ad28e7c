#pragma once
// Collectives on device buffers through any Communicator. A communicator that implements
// AcceptsDeviceBuffers (NCCL) gets the device pointers themselves; any other (TCP, local, MPI:
// hybrid mode) gets copies staged through the context's pinned host memory, so its bytes on the
// wire and its traffic counters are exactly those of the same call on host memory.
//
// Every call first waits for the work queued on gpu's stream (the inputs must be complete) and
// returns when the outputs are in place.

#include <cstddef>

#include "core/comm/communicator.h"
#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::cuda {

// Marker for communicators whose collectives take device pointers in their spans.
class AcceptsDeviceBuffers {
 public:
  virtual ~AcceptsDeviceBuffers() = default;
};

// comm.alltoall of `bytes` (size() equal blocks) from send to recv.
void device_alltoall(GpuContext& gpu, Communicator& comm, const std::byte* send, std::byte* recv,
                     size_t bytes);
// comm.allgather of `bytes` per rank from mine into all (size() * bytes).
void device_allgather(GpuContext& gpu, Communicator& comm, const std::byte* mine, size_t bytes,
                      std::byte* all);
// comm.reduce_scatter of in (size() * out_len floats) into out (out_len floats).
void device_reduce_scatter(GpuContext& gpu, Communicator& comm, const float* in, float* out,
                           size_t out_len, ReduceOp op);
// comm.allreduce of `len` floats in place (the optimizers' gradient allreduce).
void device_allreduce(GpuContext& gpu, Communicator& comm, float* data, size_t len, ReduceOp op,
                      WirePrecision precision);

}  // namespace compopt::cuda
