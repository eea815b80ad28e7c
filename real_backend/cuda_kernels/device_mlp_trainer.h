#pragma once
// DeviceMlpTrainer: one rank's Fashion-MNIST MLP training on its GPU, the entry point for a
// training loop that runs on the device: the task's train and test images are copied to the GPU
// once (DeviceImageSet), the parameters start from task.init_params(seed) as on the CPU, and a
// step is DeviceMlp's loss and gradient on the batch followed by DeviceOptimizer's update
// through the rank's communicator. Only the batch indices go to the device and the loss comes
// back; parameters stay on the device until params() is called.
//
// The calling thread's current device must be gpu.device(). Not thread-safe; one per rank.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/comm/communicator.h"
#include "core/tasks/fashion_mnist_mlp.h"
#include "core/util/hyper_params.h"
#include "real_backend/cuda_kernels/device_image_set.h"
#include "real_backend/cuda_kernels/device_mlp.h"
#include "real_backend/cuda_kernels/device_optimizer.h"

namespace compopt::cuda {

class DeviceMlpTrainer {
 public:
  // optimizer and params as for make_optimizer (InvalidArgument likewise). The task is read
  // during construction only (its images are copied to the device).
  DeviceMlpTrainer(GpuContext& gpu, const FashionMnistMlp& task, std::string_view optimizer,
                   const HyperParamMap& params, uint64_t seed);

  // One training step on the training examples `batch`; returns this rank's mean loss.
  double step(std::span<const size_t> batch, Communicator& comm);
  // Loss sum, correct predictions and count over test examples [begin, end).
  EvalSums evaluate(size_t begin, size_t end);

  // Host copy of the parameters (synchronizes).
  std::vector<float> params() const;
  const DeviceOptimizer& optimizer() const { return optimizer_; }

 private:
  GpuContext& gpu_;
  DeviceImageSet train_, test_;
  DeviceMlp mlp_;
  DeviceOptimizer optimizer_;
  DeviceBuffer params_, grads_;
};

}  // namespace compopt::cuda
