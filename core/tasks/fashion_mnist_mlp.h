#pragma once
// Fashion-MNIST classification with an MLP (default 784-256-256-10, ReLU,
// softmax cross-entropy). Pixels are scaled to [0, 1] and standardized with the
// training-set mean and deviation. Parameters: fc1.weight, fc1.bias, ... (see
// mlp.h), initialized He-normal (std sqrt(2/fan_in)) with zero biases.
// flops(): mlp_flops of the widths. Construction loads the dataset (throws DatasetError); then
// immutable.

#include <filesystem>
#include <memory>
#include <vector>

#include "core/tasks/fashion_mnist_data.h"
#include "core/tasks/task.h"

namespace compopt {

struct FashionMnistOptions {
  std::filesystem::path data_dir = kFashionMnistDefaultDir;
  std::vector<size_t> hidden = {256, 256};
  size_t eval_chunk = 500;  // test examples per forward pass in evaluate()
};

class FashionMnistMlp final : public Task {
 public:
  explicit FashionMnistMlp(const FashionMnistOptions& options);
  // Uses already loaded data (tests).
  FashionMnistMlp(std::shared_ptr<const FashionMnistData> data, FashionMnistOptions options);

  std::string name() const override { return "fashion-mnist-mlp"; }
  std::string describe() const override;
  const ParamLayout& layout() const override { return layout_; }
  std::vector<float> init_params(uint64_t seed) const override;
  size_t train_size() const override { return data_->train.count(); }
  size_t test_size() const override { return data_->test.count(); }
  bool has_accuracy() const override { return true; }
  TaskFlops flops() const override;
  std::unique_ptr<TaskWorker> make_worker(int rank) const override;

  const std::vector<size_t>& widths() const { return widths_; }
  const FashionMnistData& data() const { return *data_; }

 private:
  FashionMnistOptions options_;
  std::shared_ptr<const FashionMnistData> data_;
  std::vector<size_t> widths_;
  ParamLayout layout_;
};

}  // namespace compopt
