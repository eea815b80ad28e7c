#include "real_backend/cuda_kernels/device_exchange.h"

#include <span>

namespace compopt::cuda {

namespace {

bool accepts_device_buffers(const Communicator& comm) {
  return dynamic_cast<const AcceptsDeviceBuffers*>(&comm) != nullptr;
}

}  // namespace

void device_alltoall(GpuContext& gpu, Communicator& comm, const std::byte* send, std::byte* recv,
                     size_t bytes) {
  gpu.synchronize();
  if (accepts_device_buffers(comm)) {
    comm.alltoall(std::span(send, bytes), std::span(recv, bytes));
    return;
  }
  auto* host_send = static_cast<std::byte*>(gpu.host_scratch(Slot::kPayload, bytes));
  auto* host_recv = static_cast<std::byte*>(gpu.host_scratch(Slot::kReceived, bytes));
  gpu.copy(host_send, send, bytes);
  gpu.synchronize();
  comm.alltoall(std::span<const std::byte>(host_send, bytes), std::span(host_recv, bytes));
  gpu.copy(recv, host_recv, bytes);
  gpu.synchronize();
}

void device_allgather(GpuContext& gpu, Communicator& comm, const std::byte* mine, size_t bytes,
                      std::byte* all) {
  gpu.synchronize();
  const size_t total = bytes * static_cast<size_t>(comm.size());
  if (accepts_device_buffers(comm)) {
    comm.allgather(std::span(mine, bytes), std::span(all, total));
    return;
  }
  auto* host_mine = static_cast<std::byte*>(gpu.host_scratch(Slot::kMessage, bytes));
  auto* host_all = static_cast<std::byte*>(gpu.host_scratch(Slot::kMessages, total));
  gpu.copy(host_mine, mine, bytes);
  gpu.synchronize();
  comm.allgather(std::span<const std::byte>(host_mine, bytes), std::span(host_all, total));
  gpu.copy(all, host_all, total);
  gpu.synchronize();
}

void device_reduce_scatter(GpuContext& gpu, Communicator& comm, const float* in, float* out,
                           size_t out_len, ReduceOp op) {
  gpu.synchronize();
  const size_t in_len = out_len * static_cast<size_t>(comm.size());
  if (accepts_device_buffers(comm)) {
    comm.reduce_scatter(std::span(in, in_len), std::span(out, out_len), op);
    return;
  }
  auto* host_in = static_cast<float*>(gpu.host_scratch(Slot::kFull, in_len * sizeof(float)));
  auto* host_out = static_cast<float*>(gpu.host_scratch(Slot::kShard, out_len * sizeof(float)));
  gpu.copy(host_in, in, in_len * sizeof(float));
  gpu.synchronize();
  comm.reduce_scatter(std::span<const float>(host_in, in_len), std::span(host_out, out_len), op);
  gpu.copy(out, host_out, out_len * sizeof(float));
  gpu.synchronize();
}

void device_allreduce(GpuContext& gpu, Communicator& comm, float* data, size_t len, ReduceOp op,
                      WirePrecision precision) {
  gpu.synchronize();
  if (accepts_device_buffers(comm)) {
    comm.allreduce(std::span(data, len), op, precision);
    return;
  }
  auto* host = static_cast<float*>(gpu.host_scratch(Slot::kData, len * sizeof(float)));
  gpu.copy(host, data, len * sizeof(float));
  gpu.synchronize();
  comm.allreduce(std::span(host, len), op, precision);
  gpu.copy(data, host, len * sizeof(float));
  gpu.synchronize();
}

}  // namespace compopt::cuda
