#include "real_backend/nccl/nccl_communicator.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/util/error.h"
#include "real_backend/cuda_kernels/cuda_error.h"
#include "real_backend/cuda_kernels/gpu_compressed_allreduce.h"
#include "real_backend/cuda_kernels/gpu_hierarchical_allreduce.h"
#include "real_backend/cuda_kernels/kernels.h"
#include "real_backend/nccl/nccl_error.h"
#include "real_backend/nccl/ring_traffic.h"
#include "real_backend/tcp/tcp_transport.h"

namespace compopt::nccl {
namespace {

std::vector<int> iota_ranks(int n) {
  std::vector<int> ranks(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<size_t>(i)] = i;
  return ranks;
}

// Device view of a span: the span's own memory when it is device memory, else a copy in the
// context's staging slot (copied in when `copy_in`; copy_out() copies it back).
class Staged {
 public:
  Staged(cuda::GpuContext& gpu, const void* data, size_t bytes, cuda::Slot slot, bool copy_in)
      : gpu_(gpu), user_(const_cast<void*>(data)), bytes_(bytes) {
    if (bytes == 0 || cuda::is_device_pointer(data)) {
      device_ = user_;
      return;
    }
    device_ = gpu.device_scratch(slot, bytes);
    staged_ = true;
    if (copy_in) gpu.copy(device_, data, bytes);
  }
  void* device() const { return device_; }
  // Queues the copy back to host memory (the caller synchronizes).
  void copy_out() const {
    if (staged_) gpu_.copy(user_, device_, bytes_);
  }

 private:
  cuda::GpuContext& gpu_;
  void* user_;
  void* device_ = nullptr;
  size_t bytes_;
  bool staged_ = false;
};

cudaStream_t stream(cuda::GpuContext& gpu) { return cuda::stream_of(gpu); }

}  // namespace

NcclCommunicator::NcclCommunicator(Transport& transport, std::shared_ptr<cuda::GpuContext> gpu,
                                   ncclComm* comm, double op_timeout_s)
    : NcclCommunicator(transport, iota_ranks(transport.world_size()), 0,
                       std::make_shared<RankState>(), std::move(gpu), comm, op_timeout_s) {}

NcclCommunicator::NcclCommunicator(Transport& transport, std::vector<int> members, uint32_t context,
                                   std::shared_ptr<RankState> state,
                                   std::shared_ptr<cuda::GpuContext> gpu, ncclComm* comm,
                                   double op_timeout_s)
    : Communicator(transport, std::move(members), context, state),
      state_(std::move(state)),
      gpu_(std::move(gpu)),
      comm_(comm),
      op_timeout_s_(op_timeout_s),
      bootstrap_(dynamic_cast<const tcp::TcpTransport*>(&transport)) {}

NcclCommunicator::~NcclCommunicator() {
  if (comm_ != nullptr) (void)ncclCommDestroy(comm_);
}

void NcclCommunicator::wait(const char* op) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(op_timeout_s_);
  while (true) {
    const cudaError_t status = cudaStreamQuery(stream(*gpu_));
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady)
      cuda::check_cuda(status, fmt::format("nccl {}: stream", op).c_str());
    ncclResult_t async = ncclSuccess;
    check_nccl(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError", comm_);
    if (async != ncclSuccess && async != ncclInProgress) {
      const std::string message = fmt::format("nccl {}: {} ({}); communicator aborted", op,
                                              ncclGetErrorString(async), ncclGetLastError(comm_));
      (void)ncclCommAbort(comm_);
      comm_ = nullptr;
      throw CommError(message);
    }
    check_bootstrap();
    if (std::chrono::steady_clock::now() > deadline) {
      (void)ncclCommAbort(comm_);
      comm_ = nullptr;
      throw CommError(
          fmt::format("nccl {}: not finished after {} s (a peer failed, or ranks called "
                      "collectives in different orders or sizes); communicator aborted",
                      op, op_timeout_s_));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void NcclCommunicator::check_bootstrap() {
  if (bootstrap_ == nullptr) return;
  try {
    bootstrap_->throw_if_failed();
  } catch (...) {
    (void)ncclCommAbort(comm_);
    comm_ = nullptr;
    throw;
  }
}

void NcclCommunicator::allreduce(std::span<float> data, ReduceOp op, WirePrecision precision) {
  if (precision == WirePrecision::kFp16) {
    // The ring over the bootstrap transport on a host copy: exact semantics of the fp16 wire
    // values.
    if (!cuda::is_device_pointer(data.data())) {
      Communicator::allreduce(data, op, precision);
      return;
    }
    std::vector<float> host(data.size());
    gpu_->copy(host.data(), data.data(), data.size_bytes());
    gpu_->synchronize();
    Communicator::allreduce(host, op, precision);
    gpu_->copy(data.data(), host.data(), data.size_bytes());
    gpu_->synchronize();
    return;
  }
  TrafficCounters::Scope scope(traffic(), "allreduce");
  if (comm_ == nullptr) throw CommError("nccl allreduce: communicator was aborted");
  gpu_->activate();
  Staged buffer(*gpu_, data.data(), data.size_bytes(), cuda::Slot::kStagingIn, true);
  auto* device = static_cast<float*>(buffer.device());
  if (!data.empty()) {
    check_nccl(
        ncclAllReduce(device, device, data.size(), ncclFloat32, ncclSum, comm_, stream(*gpu_)),
        "ncclAllReduce", comm_);
    if (op == ReduceOp::kMean)
      cuda::divide(*gpu_, device, static_cast<float>(size()), data.size(), device);
  }
  buffer.copy_out();
  wait("allreduce");
  record_ring_allreduce(*this, data.size(), sizeof(float));
}

void NcclCommunicator::reduce_scatter(std::span<const float> in, std::span<float> out,
                                      ReduceOp op) {
  TrafficCounters::Scope scope(traffic(), "reduce_scatter");
  const auto n = static_cast<size_t>(size());
  if (in.size() != n * out.size()) {
    throw InvalidArgument(
        fmt::format("reduce_scatter: input has {} elements, expected {} ({} ranks x output of {})",
                    in.size(), n * out.size(), n, out.size()));
  }
  if (comm_ == nullptr) throw CommError("nccl reduce_scatter: communicator was aborted");
  gpu_->activate();
  Staged source(*gpu_, in.data(), in.size_bytes(), cuda::Slot::kStagingIn, true);
  Staged target(*gpu_, out.data(), out.size_bytes(), cuda::Slot::kStagingOut, false);
  auto* device_out = static_cast<float*>(target.device());
  if (!out.empty()) {
    check_nccl(ncclReduceScatter(source.device(), device_out, out.size(), ncclFloat32, ncclSum,
                                 comm_, stream(*gpu_)),
               "ncclReduceScatter", comm_);
    if (op == ReduceOp::kMean)
      cuda::divide(*gpu_, device_out, static_cast<float>(n), out.size(), device_out);
  }
  target.copy_out();
  wait("reduce_scatter");
  record_ring_reduce_scatter(*this, out.size(), sizeof(float));
}

void NcclCommunicator::allgather(std::span<const std::byte> mine, std::span<std::byte> all) {
  TrafficCounters::Scope scope(traffic(), "allgather");
  const size_t block = mine.size();
  if (all.size() != block * static_cast<size_t>(size())) {
    throw InvalidArgument(
        fmt::format("allgather: output holds {} bytes, expected {} ({} ranks x {} bytes)",
                    all.size(), block * static_cast<size_t>(size()), size(), block));
  }
  if (comm_ == nullptr) throw CommError("nccl allgather: communicator was aborted");
  gpu_->activate();
  Staged source(*gpu_, mine.data(), mine.size(), cuda::Slot::kStagingIn, true);
  Staged target(*gpu_, all.data(), all.size(), cuda::Slot::kStagingOut, false);
  if (block > 0) {
    check_nccl(
        ncclAllGather(source.device(), target.device(), block, ncclUint8, comm_, stream(*gpu_)),
        "ncclAllGather", comm_);
  }
  target.copy_out();
  wait("allgather");
  record_ring_allgather(*this, block);
}

void NcclCommunicator::alltoall(std::span<const std::byte> send_data,
                                std::span<std::byte> recv_data) {
  TrafficCounters::Scope scope(traffic(), "alltoall");
  const auto n = static_cast<size_t>(size());
  if (send_data.size() != recv_data.size() || send_data.size() % n != 0) {
    throw InvalidArgument(fmt::format(
        "alltoall: send holds {} bytes and receive {}, expected equal sizes divisible by {} ranks",
        send_data.size(), recv_data.size(), n));
  }
  if (comm_ == nullptr) throw CommError("nccl alltoall: communicator was aborted");
  gpu_->activate();
  const size_t block = send_data.size() / n;
  Staged source(*gpu_, send_data.data(), send_data.size(), cuda::Slot::kStagingIn, true);
  Staged target(*gpu_, recv_data.data(), recv_data.size(), cuda::Slot::kStagingOut, false);
  if (block > 0) {
    const auto* in = static_cast<const std::byte*>(source.device());
    auto* out = static_cast<std::byte*>(target.device());
    const size_t me = static_cast<size_t>(rank());
    gpu_->copy(out + me * block, in + me * block, block);
    check_nccl(ncclGroupStart(), "ncclGroupStart", comm_);
    for (int peer = 0; peer < size(); ++peer) {
      if (peer == rank()) continue;
      const size_t at = static_cast<size_t>(peer) * block;
      check_nccl(ncclSend(in + at, block, ncclUint8, peer, comm_, stream(*gpu_)), "ncclSend",
                 comm_);
      check_nccl(ncclRecv(out + at, block, ncclUint8, peer, comm_, stream(*gpu_)), "ncclRecv",
                 comm_);
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd (alltoall)", comm_);
  }
  target.copy_out();
  wait("alltoall");
  record_pairwise_alltoall(*this, block);
}

void NcclCommunicator::broadcast(std::span<std::byte> data, int root) {
  TrafficCounters::Scope scope(traffic(), "broadcast");
  if (root < 0 || root >= size()) {
    throw InvalidArgument(
        fmt::format("broadcast: root {} out of range, expected 0..{}", root, size() - 1));
  }
  if (comm_ == nullptr) throw CommError("nccl broadcast: communicator was aborted");
  gpu_->activate();
  Staged buffer(*gpu_, data.data(), data.size(), cuda::Slot::kStagingIn, rank() == root);
  if (!data.empty()) {
    check_nccl(ncclBroadcast(buffer.device(), buffer.device(), data.size(), ncclUint8, root, comm_,
                             stream(*gpu_)),
               "ncclBroadcast", comm_);
  }
  buffer.copy_out();
  wait("broadcast");
  record_binomial_broadcast(*this, data.size(), root);
}

void NcclCommunicator::barrier() {
  TrafficCounters::Scope scope(traffic(), "barrier");
  if (comm_ == nullptr) throw CommError("nccl barrier: communicator was aborted");
  gpu_->activate();
  auto* flag = static_cast<float*>(gpu_->device_scratch(cuda::Slot::kStagingIn, sizeof(float)));
  check_nccl(ncclAllReduce(flag, flag, 1, ncclFloat32, ncclSum, comm_, stream(*gpu_)),
             "ncclAllReduce (barrier)", comm_);
  wait("barrier");
  record_dissemination_barrier(*this);
}

std::unique_ptr<Communicator> NcclCommunicator::split(int color, int key) {
  TrafficCounters::Scope scope(traffic(), "split");
  // The bookkeeping of Communicator::split (its exchange runs on NCCL through allgather), then
  // ncclCommSplit, which orders the new group by (key, old rank) too.
  SplitPlan plan = plan_split(color, key, state_->next_context);
  gpu_->activate();
  ncclComm_t sub = nullptr;
  check_nccl(ncclCommSplit(comm_, color == kUndefinedColor ? NCCL_SPLIT_NOCOLOR : color, key, &sub,
                           nullptr),
             "ncclCommSplit", comm_);
  if (color == kUndefinedColor) return nullptr;
  return std::unique_ptr<Communicator>(new NcclCommunicator(
      transport(), std::move(plan.members), plan.context, state_, gpu_, sub, op_timeout_s_));
}

void NcclCommunicator::compressed_allreduce(std::span<float> data, const Compressor& compressor,
                                            CompressedAllreduceState& state, RandomKey key) {
  if (!cuda::codec_for(compressor)) {
    Communicator::compressed_allreduce(data, compressor, state, key);
    return;
  }
  cuda::compressed_allreduce_mean(*gpu_, *this, data, compressor, state, key);
}

void NcclCommunicator::hierarchical_compressed_allreduce(
    HierarchicalGroups& groups, std::span<float> data, const Compressor& compressor,
    CompressedAllreduceState& state, RandomKey key, const ShardTransform& transform) {
  if (!cuda::codec_for(compressor)) {
    Communicator::hierarchical_compressed_allreduce(groups, data, compressor, state, key,
                                                    transform);
    return;
  }
  cuda::hierarchical_compressed_allreduce_mean(*gpu_, groups, data, compressor, state, key,
                                               transform);
}

}  // namespace compopt::nccl
