#pragma once
// The compressed allreduce of [1BA] §6 (docs/algorithms.md;
// core/comm/collectives/compressed_allreduce.h) with the CUDA kernels: worker encode with error
// feedback, server step and final decode run on the rank's GPU; the all-to-all and all-gathers go
// through the communicator (device_exchange.h: NCCL takes device buffers, every other backend gets
// pinned host copies: hybrid mode). For `sign` and `binary`, results, error feedback and traffic
// counters are bit-identical to the CPU function for the same inputs, RandomKey and group.
//
// The calling thread's current device must be gpu.device(). Collective: every rank of comm calls
// with the same d, codec and key.seed/step.

#include <cstddef>
#include <span>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/communicator.h"
#include "core/compress/compressor.h"
#include "core/compress/random_key.h"
#include "real_backend/cuda_kernels/gpu_context.h"
#include "real_backend/cuda_kernels/kernels.h"

namespace compopt::cuda {

// Non-owning view of device error feedback: worker (padded length), server (padded / n).
struct DeviceEf {
  float* worker = nullptr;
  size_t worker_size = 0;
  float* server = nullptr;
  size_t server_size = 0;
};

// Device-resident error feedback of one vector, zero-initialized.
class GpuCompressedState {
 public:
  GpuCompressedState() = default;
  GpuCompressedState(GpuContext& gpu, size_t d, int n);

  DeviceEf view() { return {worker_.as<float>(), worker_size_, server_.as<float>(), server_size_}; }
  // Copies to/from the host state (sizes must match; InvalidArgument otherwise). Synchronous.
  void upload(GpuContext& gpu, const CompressedAllreduceState& host);
  void download(GpuContext& gpu, CompressedAllreduceState& host) const;

 private:
  DeviceBuffer worker_, server_;
  size_t worker_size_ = 0, server_size_ = 0;
};

// Wall seconds of each phase of the last call (stream synchronized at each boundary).
struct CompressedStepTimes {
  double encode = 0;     // worker: y = x + e, scale, bits, new error
  double alltoall = 0;   // bit-chunks out, worker scales gathered (incl. staging copies)
  double server = 0;     // decode n chunks, average, server error, re-encode
  double allgather = 0;  // server messages (incl. staging copies)
  double decode = 0;     // final decode into the output
};

// data: device pointer to d floats, replaced by the compressed mean. Throws InvalidArgument when
// ef was sized for another (d, n).
void compressed_allreduce_mean(GpuContext& gpu, Communicator& comm, float* data, size_t d,
                               Codec codec, DeviceEf ef, RandomKey key,
                               CompressedStepTimes* times = nullptr);

// Phases 1-3 and the all-gather of the server messages without the final decode; returns the n
// messages (device memory, the context's Slot::kMessages scratch, valid until the next call).
std::span<const std::byte> compressed_allreduce_messages(GpuContext& gpu, Communicator& comm,
                                                         const float* data, size_t d, Codec codec,
                                                         DeviceEf ef, RandomKey key,
                                                         CompressedStepTimes* times = nullptr);

// Drop-in for the CPU compressed_allreduce_mean on host data and host state (both are copied to
// the GPU and back). Throws InvalidArgument for compressors other than sign and binary.
void compressed_allreduce_mean(GpuContext& gpu, Communicator& comm, std::span<float> data,
                               const Compressor& compressor, CompressedAllreduceState& state,
                               RandomKey key);

// The staging of the host drop-ins (this one and the hierarchical one): copies host data and host
// error feedback into the context's scratch slots kData, kWorkerEf and kServerEf, and back
// (synchronizing the stream). Sizes are the caller's to check.
struct StagedOnDevice {
  float* data = nullptr;
  DeviceEf ef;
};
StagedOnDevice stage_on_device(GpuContext& gpu, std::span<const float> data,
                               const CompressedAllreduceState& state);
void unstage_to_host(GpuContext& gpu, const StagedOnDevice& staged, std::span<float> data,
                     CompressedAllreduceState& state);

// codec_for(compressor), or InvalidArgument naming it and the compressors that have kernels.
Codec require_codec(const Compressor& compressor);

}  // namespace compopt::cuda
