#pragma once
// Internal to real_backend/cuda and real_backend/nccl (needs the CUDA runtime headers): turns a
// cudaError_t into a CudaError naming the failed call and cudaGetErrorString's text.

#include <cuda_runtime_api.h>

#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::cuda {

// Throws CudaError("<what>: <cudaGetErrorName>: <cudaGetErrorString>") unless status is success.
void check_cuda(cudaError_t status, const char* what);

inline cudaStream_t stream_of(const GpuContext& gpu) {
  return static_cast<cudaStream_t>(gpu.stream());
}

}  // namespace compopt::cuda
