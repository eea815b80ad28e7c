#include "real_backend/cuda/bench_variants.h"

#include <memory>
#include <optional>
#include <span>

#include "real_backend/cuda/device_exchange.h"
#include "real_backend/cuda/gpu_compressed_allreduce.h"

namespace compopt::cuda {

BenchVariant gpu_bench_variant(const std::string& name, GpuContext& gpu, BenchVariant cpu) {
  std::optional<Codec> codec;
  if (name == "compressed-sign") codec = Codec::kSign;
  if (name == "compressed-binary") codec = Codec::kBinary;
  if (!codec && name != "allreduce-fp32") return cpu;
  struct State {
    DeviceBuffer x;
    size_t size = 0;
    int ranks = 0;
    GpuCompressedState ef;
  };
  auto state = std::make_shared<State>();
  return [&gpu, codec, state, cpu](Communicator& comm, std::vector<float>& x, uint64_t step) {
    if (!codec && !accepts_device_buffers(comm)) {
      cpu(comm, x, step);
      return;
    }
    if (state->size != x.size() || state->ranks != comm.size()) {
      state->x = DeviceBuffer(x.size() * sizeof(float));
      gpu.copy(state->x.data(), x.data(), x.size() * sizeof(float));
      if (codec) state->ef = GpuCompressedState(gpu, x.size(), comm.size());
      gpu.synchronize();
      state->size = x.size();
      state->ranks = comm.size();
    }
    if (codec) {
      compressed_allreduce_mean(gpu, comm, state->x.as<float>(), x.size(), *codec, state->ef.view(),
                                RandomKey{.seed = 3, .step = step});
    } else {
      comm.allreduce(std::span(state->x.as<float>(), x.size()), ReduceOp::kMean);
    }
    gpu.synchronize();
  };
}

}  // namespace compopt::cuda
