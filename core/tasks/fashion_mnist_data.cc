#include "core/tasks/fashion_mnist_data.h"

#include <fmt/format.h>

#include <cmath>

#include "core/tasks/idx_reader.h"

namespace compopt {
namespace {

ImageSet load_split(const std::filesystem::path& dir, const std::string& prefix) {
  const auto image_path = dir / (prefix + "-images-idx3-ubyte.gz");
  const auto label_path = dir / (prefix + "-labels-idx1-ubyte.gz");
  IdxArray images = read_idx_u8(image_path, 3);
  IdxArray labels = read_idx_u8(label_path, 1);
  if (images.dims[1] != 28 || images.dims[2] != 28) {
    throw DatasetError(fmt::format("IDX file {}: images are {}x{}, expected 28x28",
                                   image_path.string(), images.dims[1], images.dims[2]));
  }
  if (images.dims[0] != labels.dims[0]) {
    throw DatasetError(fmt::format("{} has {} images but {} has {} labels", image_path.string(),
                                   images.dims[0], label_path.string(), labels.dims[0]));
  }
  for (size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] >= kFashionMnistClasses) {
      throw DatasetError(fmt::format("IDX file {}: label {} at index {}, expected 0..9",
                                     label_path.string(), labels.data[i], i));
    }
  }
  return ImageSet{std::move(images.data), std::move(labels.data)};
}

// The install hint appended to every loading error.
std::string fashion_mnist_install_hint() {
  return fmt::format(
      "Fashion-MNIST is expected as four IDX .gz files in {} (install with "
      "`apt-get install dataset-fashion-mnist`, or scripts/install_deps.sh), or point "
      "task.data_dir at a folder holding them",
      kFashionMnistDefaultDir);
}

}  // namespace

FashionMnistData load_fashion_mnist(const std::filesystem::path& dir) {
  FashionMnistData data;
  try {
    data.train = load_split(dir, "train");
    data.test = load_split(dir, "t10k");
  } catch (const DatasetError& e) {
    throw DatasetError(fmt::format("{}. {}", e.what(), fashion_mnist_install_hint()));
  }
  double sum = 0, sum_sq = 0;
  for (const uint8_t p : data.train.pixels) {
    const double v = p / 255.0;
    sum += v;
    sum_sq += v * v;
  }
  const double n = static_cast<double>(data.train.pixels.size());
  const double mean = sum / n;
  data.pixel_mean = static_cast<float>(mean);
  data.pixel_std = static_cast<float>(std::sqrt(std::max(sum_sq / n - mean * mean, 1e-12)));
  return data;
}

}  // namespace compopt
