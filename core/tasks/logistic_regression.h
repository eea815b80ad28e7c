#pragma once
// Binary logistic regression on synthetic Gaussian data.
// - Features x ~ N(0, I_d); a hidden direction w* ~ N(0, I_d).
// - Separable data: y = [w* . x > 0]. Non-separable: that label flipped with
//   probability label_noise (independently per example, train and test).
// - Loss per example: softplus(z) - y z with z = w . x + b, plus l2/2 ||w||^2.
// - Accuracy: [z > 0] == y.
// Parameters: "weight" (1 x d) then "bias" (1); init_params draws w ~ N(0, 0.01^2 I), b = 0.
// FLOPs per example: forward 2d (w . x), backward 2d ((sigmoid(z) - y) x), one layer.

#include <cstdint>
#include <vector>

#include "core/tasks/task.h"

namespace compopt {

struct LogisticRegressionOptions {
  size_t dimension = 20;
  size_t train_size = 8192;
  size_t test_size = 2048;
  bool separable = true;
  double label_noise = 0.1;  // used only when !separable, in [0, 0.5]
  double l2 = 0.0;
  uint64_t seed = 1;  // the data set
};

class LogisticRegressionTask final : public Task {
 public:
  // Throws InvalidArgument for zero sizes, label_noise outside [0, 0.5], l2 < 0.
  explicit LogisticRegressionTask(LogisticRegressionOptions options);

  std::string name() const override { return "logistic"; }
  std::string describe() const override;
  const ParamLayout& layout() const override { return layout_; }
  std::vector<float> init_params(uint64_t seed) const override;
  size_t train_size() const override { return options_.train_size; }
  size_t test_size() const override { return options_.test_size; }
  bool has_accuracy() const override { return true; }
  TaskFlops flops() const override;
  std::unique_ptr<TaskWorker> make_worker(int rank) const override;

  struct Split {
    std::vector<float> x;  // count x dimension, row-major
    std::vector<uint8_t> y;
  };
  const Split& train() const { return train_; }
  const Split& test() const { return test_; }
  const LogisticRegressionOptions& options() const { return options_; }

 private:
  LogisticRegressionOptions options_;
  ParamLayout layout_;
  Split train_, test_;
};

}  // namespace compopt
