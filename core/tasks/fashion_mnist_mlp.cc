#include "core/tasks/fashion_mnist_mlp.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <random>

#include "core/tasks/mlp.h"
#include "core/util/error.h"

namespace compopt {
namespace {

class FashionMnistWorker final : public TaskWorker {
 public:
  FashionMnistWorker(const FashionMnistData& data, const std::vector<size_t>& widths,
                     size_t eval_chunk)
      : data_(data), train_kernel_(widths), eval_kernel_(widths), eval_chunk_(eval_chunk) {}

  double loss_and_grad(std::span<const float> params, std::span<const size_t> batch,
                       std::span<float> grad) override {
    gather(
        data_.train, batch.size(), [&](size_t i) { return batch[i]; }, train_x_);
    return train_kernel_.loss_and_grad(params, train_x_, labels_, grad);
  }

  EvalSums evaluate(std::span<const float> params, size_t begin, size_t end) override {
    EvalSums sums;
    for (size_t start = begin; start < end; start += eval_chunk_) {
      const size_t n = std::min(eval_chunk_, end - start);
      gather(
          data_.test, n, [&](size_t i) { return start + i; }, eval_x_);
      const auto e = eval_kernel_.evaluate(params, eval_x_, labels_);
      sums.loss_sum += e.loss_sum;
      sums.correct += static_cast<double>(e.correct);
      sums.count += static_cast<double>(n);
    }
    return sums;
  }

 private:
  using Matrix = MlpKernel<float>::Matrix;

  // Standardized pixels of examples index(0..n-1) into x (n x 784) and labels_.
  template <typename IndexFn>
  void gather(const ImageSet& set, size_t n, IndexFn index, Matrix& x) {
    x.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(kFashionMnistPixels));
    labels_.resize(n);
    const float scale = 1.0f / (255.0f * data_.pixel_std);
    const float shift = -data_.pixel_mean / data_.pixel_std;
    for (size_t i = 0; i < n; ++i) {
      const size_t k = index(i);
      if (k >= set.count()) throw InvalidArgument(fmt::format("example index {} out of range", k));
      const uint8_t* src = set.pixels.data() + k * kFashionMnistPixels;
      float* dst = x.data() + i * kFashionMnistPixels;
      for (size_t p = 0; p < kFashionMnistPixels; ++p)
        dst[p] = static_cast<float>(src[p]) * scale + shift;
      labels_[i] = set.labels[k];
    }
  }

  const FashionMnistData& data_;
  MlpKernel<float> train_kernel_, eval_kernel_;
  size_t eval_chunk_;
  Matrix train_x_, eval_x_;
  std::vector<int> labels_;
};

std::vector<size_t> make_widths(const std::vector<size_t>& hidden) {
  std::vector<size_t> widths = {kFashionMnistPixels};
  for (const size_t h : hidden) {
    if (h == 0) throw InvalidArgument("fashion-mnist-mlp: hidden width 0, expected >= 1");
    widths.push_back(h);
  }
  widths.push_back(kFashionMnistClasses);
  return widths;
}

}  // namespace

FashionMnistMlp::FashionMnistMlp(const FashionMnistOptions& options)
    : FashionMnistMlp(std::make_shared<FashionMnistData>(load_fashion_mnist(options.data_dir)),
                      options) {}

FashionMnistMlp::FashionMnistMlp(std::shared_ptr<const FashionMnistData> data,
                                 FashionMnistOptions options)
    : options_(std::move(options)),
      data_(std::move(data)),
      widths_(make_widths(options_.hidden)),
      layout_(mlp_layout(widths_)) {
  if (options_.eval_chunk == 0) throw InvalidArgument("fashion-mnist-mlp: eval_chunk must be >= 1");
}

TaskFlops FashionMnistMlp::flops() const { return mlp_flops(widths_); }

std::string FashionMnistMlp::describe() const {
  return fmt::format("fashion-mnist-mlp {} ({} parameters), {} train / {} test images from {}",
                     fmt::join(widths_, "-"), layout_.total(), train_size(), test_size(),
                     options_.data_dir.string());
}

std::vector<float> FashionMnistMlp::init_params(uint64_t seed) const {
  std::vector<float> params(layout_.total(), 0.0f);
  std::mt19937_64 rng(seed);
  for (size_t l = 1; l < widths_.size(); ++l) {
    const TensorSpec& w = layout_.tensor(2 * (l - 1));
    std::normal_distribution<double> normal(0.0,
                                            std::sqrt(2.0 / static_cast<double>(widths_[l - 1])));
    for (size_t i = 0; i < w.size; ++i) params[w.offset + i] = static_cast<float>(normal(rng));
  }
  return params;
}

std::unique_ptr<TaskWorker> FashionMnistMlp::make_worker(int /*rank*/) const {
  return std::make_unique<FashionMnistWorker>(*data_, widths_, options_.eval_chunk);
}

}  // namespace compopt
