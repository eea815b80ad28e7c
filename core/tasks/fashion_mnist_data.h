#pragma once
// The Fashion-MNIST dataset (Xiao et al. 2017) read from its four IDX .gz files:
// {train,t10k}-images-idx3-ubyte.gz (N x 28 x 28 bytes) and
// {train,t10k}-labels-idx1-ubyte.gz (N bytes, labels 0..9).
// load_fashion_mnist throws DatasetError naming the file and the problem (see
// idx_reader.h; also image/label count mismatch, image size other than 28x28,
// label out of range), with the hint to install the Debian package
// dataset-fashion-mnist. Immutable after loading; safe to share between threads.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace compopt {

inline constexpr const char* kFashionMnistDefaultDir = "/usr/share/datasets/fashion-mnist";
inline constexpr size_t kFashionMnistPixels = size_t{28} * 28;
inline constexpr int kFashionMnistClasses = 10;

struct ImageSet {
  std::vector<uint8_t> pixels;  // count x kFashionMnistPixels, row-major
  std::vector<uint8_t> labels;  // count
  size_t count() const { return labels.size(); }
};

struct FashionMnistData {
  ImageSet train;
  ImageSet test;
  // Mean and standard deviation of the training pixels (in [0, 1] units).
  float pixel_mean = 0;
  float pixel_std = 1;
};

FashionMnistData load_fashion_mnist(const std::filesystem::path& dir);

}  // namespace compopt
