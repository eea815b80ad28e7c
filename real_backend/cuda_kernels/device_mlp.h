#pragma once
// DeviceMlp: MlpKernel<float> (core/tasks/mlp.h) on a GPU: the same network (widths, ReLU after
// every layer but the last, softmax cross-entropy), the same parameter layout (mlp_layout:
// fc1.weight [h1 x in] row-major, fc1.bias, ...) and the same mean loss and gradient, with the
// GEMMs in cuBLAS (fp32, CUBLAS_DEFAULT_MATH: no TF32) and batches gathered on the device from a
// DeviceImageSet. cuBLAS sums its products in another order than Eigen, so losses and gradients
// agree with the CPU to fp32 rounding (the tests allow 1e-4 relative), not bit for bit; on one
// GPU, repeated calls give identical results.
//
// Params and grad are device pointers to num_params() floats. The calling thread's current
// device must be gpu.device(); work runs on gpu.stream(). Activation buffers grow to the largest
// batch seen. Not thread-safe; one instance per rank.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/tasks/task.h"
#include "real_backend/cuda_kernels/device_image_set.h"
#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::cuda {

class DeviceMlp {
 public:
  // widths = {in, h1, ..., out}; InvalidArgument as mlp_layout. Creates a cuBLAS handle bound to
  // gpu.stream() (CudaError when cuBLAS cannot start).
  DeviceMlp(GpuContext& gpu, std::vector<size_t> widths);
  ~DeviceMlp();
  DeviceMlp(const DeviceMlp&) = delete;
  DeviceMlp& operator=(const DeviceMlp&) = delete;

  const std::vector<size_t>& widths() const { return widths_; }
  size_t num_params() const { return num_params_; }

  // Mean cross-entropy of the examples `batch` of `set` (indices < set.count()); grad := its
  // gradient. Synchronizes (returns the loss). InvalidArgument for an empty batch, an index out
  // of range, a set of another width or labels >= the output width.
  double loss_and_grad(const float* params, const DeviceImageSet& set,
                       std::span<const size_t> batch, float* grad);
  // Loss sum, correct predictions (first argmax) and count over examples [begin, end) of set,
  // evaluated `chunk` examples at a time.
  EvalSums evaluate(const float* params, const DeviceImageSet& set, size_t begin, size_t end,
                    size_t chunk = 500);

 private:
  // Gathers the examples into acts_[0], runs every layer; leaves log-probabilities in the last
  // activation and per-example loss/correct in head_; when delta, also the softmax delta.
  void forward(const float* params, const DeviceImageSet& set, std::span<const size_t> rows,
               bool delta);
  void backward(const float* params, size_t batch, float* grad);
  void reserve(size_t batch);
  std::vector<double> head_sums(size_t batch);

  GpuContext& gpu_;
  std::vector<size_t> widths_;
  std::vector<size_t> offsets_;  // weight offset of layer l at [l-1]; the bias follows it
  size_t num_params_ = 0;
  void* handle_ = nullptr;  // cublasHandle_t
  size_t capacity_ = 0;     // batch rows the buffers hold
  std::vector<DeviceBuffer> acts_, deltas_;
  DeviceBuffer index_, labels_, loss_, correct_, sums_;
  std::vector<uint64_t> host_index_;
};

}  // namespace compopt::cuda
