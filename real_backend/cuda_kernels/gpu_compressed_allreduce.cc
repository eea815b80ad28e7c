#include "real_backend/cuda_kernels/gpu_compressed_allreduce.h"

#include <fmt/format.h>

#include <chrono>

#include "core/util/error.h"
#include "real_backend/cuda_kernels/device_exchange.h"

namespace compopt::cuda {
namespace {

void check_ef(const DeviceEf& ef, size_t d, int n) {
  const size_t padded = compressed_padded_length(d, n);
  if (ef.worker_size != padded || ef.server_size != padded / static_cast<size_t>(n)) {
    throw InvalidArgument(
        fmt::format("GPU compressed allreduce: error-feedback state holds {} worker / {} server "
                    "elements, expected {} / {} "
                    "for {} elements on {} ranks",
                    ef.worker_size, ef.server_size, padded, padded / static_cast<size_t>(n), d, n));
  }
}

// Adds the seconds since the last mark to *slot (no-op without a times record).
class PhaseClock {
 public:
  PhaseClock(GpuContext& gpu, CompressedStepTimes* times) : gpu_(gpu), times_(times) {}
  void mark(double CompressedStepTimes::*slot) {
    if (times_ == nullptr) return;
    gpu_.synchronize();
    const auto now = std::chrono::steady_clock::now();
    times_->*slot += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  GpuContext& gpu_;
  CompressedStepTimes* times_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

constexpr size_t kScaleSlot = 16;  // bytes reserved for the worker scale before the payload

}  // namespace

Codec require_codec(const Compressor& compressor) {
  if (const auto codec = codec_for(compressor)) return *codec;
  throw InvalidArgument(
      fmt::format("GPU compressed allreduce: compressor '{}' has no CUDA kernels, expected "
                  "sign or binary",
                  compressor.name()));
}

GpuCompressedState::GpuCompressedState(GpuContext& gpu, size_t d, int n)
    : worker_(compressed_padded_length(d, n) * sizeof(float)),
      server_(compressed_padded_length(d, n) / static_cast<size_t>(n) * sizeof(float)),
      worker_size_(compressed_padded_length(d, n)),
      server_size_(compressed_padded_length(d, n) / static_cast<size_t>(n)) {
  gpu.zero(worker_.data(), worker_.size());
  gpu.zero(server_.data(), server_.size());
  gpu.synchronize();
}

void GpuCompressedState::upload(GpuContext& gpu, const CompressedAllreduceState& host) {
  if (host.worker.size() != worker_size_ || host.server.size() != server_size_) {
    throw InvalidArgument(fmt::format(
        "GpuCompressedState::upload: host state holds {} / {} elements, expected {} / {}",
        host.worker.size(), host.server.size(), worker_size_, server_size_));
  }
  gpu.copy(worker_.data(), host.worker.error().data(), worker_size_ * sizeof(float));
  gpu.copy(server_.data(), host.server.error().data(), server_size_ * sizeof(float));
  gpu.synchronize();
}

void GpuCompressedState::download(GpuContext& gpu, CompressedAllreduceState& host) const {
  if (host.worker.size() != worker_size_ || host.server.size() != server_size_) {
    throw InvalidArgument(fmt::format(
        "GpuCompressedState::download: host state holds {} / {} elements, expected {} / {}",
        host.worker.size(), host.server.size(), worker_size_, server_size_));
  }
  gpu.copy(host.worker.mutable_error().data(), worker_.data(), worker_size_ * sizeof(float));
  gpu.copy(host.server.mutable_error().data(), server_.data(), server_size_ * sizeof(float));
  gpu.synchronize();
}

std::span<const std::byte> compressed_allreduce_messages(GpuContext& gpu, Communicator& comm,
                                                         const float* data, size_t d, Codec codec,
                                                         DeviceEf ef, RandomKey key,
                                                         CompressedStepTimes* times) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<size_t>(n);
  check_ef(ef, d, n);
  PhaseClock clock(gpu, times);
  const size_t padded = ef.worker_size, chunk = padded / un;
  const size_t chunk_payload = payload_bytes(chunk), message = message_bytes(codec, chunk);
  const bool sign = codec == Codec::kSign;
  key.rank = static_cast<uint32_t>(comm.world_rank_of(r));
  const uint64_t base_offset = key.index_offset;

  // 1. Worker: y = pad(x) + e_w, one scale for the whole padded vector; e_w = y - decode.
  auto* worker =
      static_cast<std::byte*>(gpu.device_scratch(Slot::kPayload, kScaleSlot + un * chunk_payload));
  auto* worker_scale = reinterpret_cast<float*>(worker);
  std::byte* worker_payload = worker + kScaleSlot;
  key.stream = 0;
  if (sign) {
    sign_encode(gpu, data, d, ef.worker, padded, worker_payload, worker_scale);
  } else {
    binary_encode(gpu, data, d, ef.worker, padded, worker_payload, key, nullptr);
  }
  clock.mark(&CompressedStepTimes::encode);

  // 2. Bit-chunks to their owners; worker scales to everyone. received = [n scales][n payloads].
  auto* received = static_cast<std::byte*>(
      gpu.device_scratch(Slot::kReceived, un * (sizeof(float) + chunk_payload)));
  auto* scales = reinterpret_cast<float*>(received);
  std::byte* received_payloads = received + un * sizeof(float);
  device_alltoall(gpu, comm, worker_payload, received_payloads, un * chunk_payload);
  if (sign) {
    device_allgather(gpu, comm, reinterpret_cast<const std::byte*>(worker_scale), sizeof(float),
                     reinterpret_cast<std::byte*>(scales));
  }
  clock.mark(&CompressedStepTimes::alltoall);

  // 3. Server: average the n decoded chunks in rank order, add e_s, re-encode; e_s = z - decode.
  auto* own = static_cast<std::byte*>(gpu.device_scratch(Slot::kMessage, message));
  key.stream = 1;
  key.index_offset = base_offset + static_cast<uint64_t>(r) * chunk;
  server_step(gpu, codec, received_payloads, sign ? scales : nullptr, n, chunk, ef.server, own,
              key);
  clock.mark(&CompressedStepTimes::server);

  // 4. All-gather the server messages.
  auto* all = static_cast<std::byte*>(gpu.device_scratch(Slot::kMessages, un * message));
  device_allgather(gpu, comm, own, message, all);
  clock.mark(&CompressedStepTimes::allgather);
  return {all, un * message};
}

void compressed_allreduce_mean(GpuContext& gpu, Communicator& comm, float* data, size_t d,
                               Codec codec, DeviceEf ef, RandomKey key,
                               CompressedStepTimes* times) {
  TrafficCounters::Scope scope(comm.traffic(), "compressed_allreduce");
  if (times != nullptr) *times = {};
  const auto messages = compressed_allreduce_messages(gpu, comm, data, d, codec, ef, key, times);
  PhaseClock clock(gpu, times);
  decode_messages(gpu, codec, messages.data(), static_cast<size_t>(comm.size()), ef.server_size,
                  data, d);
  clock.mark(&CompressedStepTimes::decode);
}

void compressed_allreduce_mean(GpuContext& gpu, Communicator& comm, std::span<float> data,
                               const Compressor& compressor, CompressedAllreduceState& state,
                               RandomKey key) {
  const Codec codec = require_codec(compressor);
  const size_t padded = compressed_padded_length(data.size(), comm.size());
  if (state.worker.size() != padded ||
      state.server.size() != padded / static_cast<size_t>(comm.size())) {
    check_ef({nullptr, state.worker.size(), nullptr, state.server.size()}, data.size(),
             comm.size());
  }
  gpu.activate();
  const StagedOnDevice staged = stage_on_device(gpu, data, state);
  compressed_allreduce_mean(gpu, comm, staged.data, data.size(), codec, staged.ef, key);
  unstage_to_host(gpu, staged, data, state);
}

StagedOnDevice stage_on_device(GpuContext& gpu, std::span<const float> data,
                               const CompressedAllreduceState& state) {
  StagedOnDevice staged;
  staged.ef = {
      static_cast<float*>(gpu.device_scratch(Slot::kWorkerEf, state.worker.size() * sizeof(float))),
      state.worker.size(),
      static_cast<float*>(gpu.device_scratch(Slot::kServerEf, state.server.size() * sizeof(float))),
      state.server.size()};
  staged.data = static_cast<float*>(gpu.device_scratch(Slot::kData, data.size_bytes()));
  gpu.copy(staged.data, data.data(), data.size_bytes());
  gpu.copy(staged.ef.worker, state.worker.error().data(), staged.ef.worker_size * sizeof(float));
  gpu.copy(staged.ef.server, state.server.error().data(), staged.ef.server_size * sizeof(float));
  return staged;
}

void unstage_to_host(GpuContext& gpu, const StagedOnDevice& staged, std::span<float> data,
                     CompressedAllreduceState& state) {
  gpu.copy(data.data(), staged.data, data.size_bytes());
  gpu.copy(state.worker.mutable_error().data(), staged.ef.worker,
           staged.ef.worker_size * sizeof(float));
  gpu.copy(state.server.mutable_error().data(), staged.ef.server,
           staged.ef.server_size * sizeof(float));
  gpu.synchronize();
}

}  // namespace compopt::cuda
