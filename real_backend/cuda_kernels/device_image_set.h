#pragma once
// DeviceImageSet: a labelled image dataset copied once to a GPU (uint8 pixels and labels), with
// the affine standardization the CPU task applies when it gathers a batch (x = p * scale + shift
// in fp32). DeviceMlp gathers its batches from it on the device, so a training step moves only
// the batch's indices from the host.

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/tasks/fashion_mnist_data.h"
#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::cuda {

class DeviceImageSet {
 public:
  // pixels: count x width bytes (row-major), labels: count values. Throws InvalidArgument when
  // the sizes disagree or width is 0. Synchronous upload.
  DeviceImageSet(GpuContext& gpu, std::span<const uint8_t> pixels, std::span<const uint8_t> labels,
                 size_t width, float scale, float shift);
  // One split of Fashion-MNIST, standardized as FashionMnistMlp's workers do
  // (scale = 1 / (255 std), shift = -mean / std of the training pixels).
  DeviceImageSet(GpuContext& gpu, const FashionMnistData& data, const ImageSet& set);

  size_t count() const { return count_; }
  size_t width() const { return width_; }
  float scale() const { return scale_; }
  float shift() const { return shift_; }
  // The largest label (0 for an empty set).
  uint8_t max_label() const { return max_label_; }
  const uint8_t* pixels() const { return pixels_.as<uint8_t>(); }
  const uint8_t* labels() const { return labels_.as<uint8_t>(); }

 private:
  DeviceBuffer pixels_, labels_;
  size_t count_ = 0, width_ = 0;
  float scale_ = 1, shift_ = 0;
  uint8_t max_label_ = 0;
};

}  // namespace compopt::cuda
