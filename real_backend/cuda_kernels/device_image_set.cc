#include "real_backend/cuda_kernels/device_image_set.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/util/error.h"

namespace compopt::cuda {

DeviceImageSet::DeviceImageSet(GpuContext& gpu, std::span<const uint8_t> pixels,
                               std::span<const uint8_t> labels, size_t width, float scale,
                               float shift)
    : count_(labels.size()), width_(width), scale_(scale), shift_(shift) {
  if (width == 0 || pixels.size() != labels.size() * width) {
    throw InvalidArgument(fmt::format(
        "DeviceImageSet: {} pixel bytes for {} labels of width {}, expected labels x width (>= 1)",
        pixels.size(), labels.size(), width));
  }
  for (const uint8_t label : labels) max_label_ = std::max(max_label_, label);
  pixels_ = DeviceBuffer(pixels.size());
  labels_ = DeviceBuffer(labels.size());
  gpu.copy(pixels_.data(), pixels.data(), pixels.size());
  gpu.copy(labels_.data(), labels.data(), labels.size());
  gpu.synchronize();
}

DeviceImageSet::DeviceImageSet(GpuContext& gpu, const FashionMnistData& data, const ImageSet& set)
    : DeviceImageSet(gpu, set.pixels, set.labels, kFashionMnistPixels,
                     1.0f / (255.0f * data.pixel_std), -data.pixel_mean / data.pixel_std) {}

}  // namespace compopt::cuda
