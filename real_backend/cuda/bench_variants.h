#pragma once
// GPU versions of `compopt comm-bench` variants for the hybrid and nccl backends: the benchmarked
// vector lives on the rank's GPU (uploaded once per size, never copied back) and
//   compressed-sign / compressed-binary  run gpu_compressed_allreduce.h (kernels + exchange);
//   allreduce-fp32                       runs the communicator's allreduce on the device buffer
//                                        when it takes device buffers (NCCL), else the CPU one.
// Other variants keep their CPU version. Each call returns after the GPU finished.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/comm/communicator.h"
#include "real_backend/cuda/gpu_context.h"

namespace compopt::cuda {

using BenchVariant = std::function<void(Communicator&, std::vector<float>&, uint64_t step)>;

// The GPU version of variant `name` on `gpu`, or `cpu` when the variant has none.
BenchVariant gpu_bench_variant(const std::string& name, GpuContext& gpu, BenchVariant cpu);

}  // namespace compopt::cuda
