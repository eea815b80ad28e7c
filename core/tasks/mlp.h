#pragma once
// A fully connected ReLU network with a softmax cross-entropy head, forward and
// backward on row-major batches with Eigen GEMMs.
//
// widths = {in, h1, ..., out}: layer l (1-based) maps widths[l-1] -> widths[l];
// ReLU after every layer but the last. Parameters are PyTorch-shaped and laid
// out in order fc1.weight [h1 x in] (row-major), fc1.bias [h1], fc2.weight, ...
// (mlp_layout). Templated on the scalar so tests can check gradients in double.
//
// An MlpKernel holds activation buffers; they are resized only when the batch
// size changes, so repeated calls with one batch size do not allocate.
// Not thread-safe: one kernel per thread.

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/tasks/task.h"
#include "core/util/param_layout.h"

namespace compopt {

ParamLayout mlp_layout(const std::vector<size_t>& widths);

// Per example: forward = the products of every layer, 2 x sum_l w[l-1] w[l];
// backward = the weight gradients (the same) plus the input gradients of
// layers 2..L (layer 1 needs none); layers = L. Biases, ReLU and softmax are
// not counted. Throws InvalidArgument for fewer than 2 widths.
TaskFlops mlp_flops(const std::vector<size_t>& widths);

template <typename T>
class MlpKernel {
 public:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  // Requires at least two widths, all >= 1.
  explicit MlpKernel(std::vector<size_t> widths);

  const std::vector<size_t>& widths() const { return widths_; }
  size_t num_params() const { return num_params_; }

  // x: batch x in; labels: batch values in [0, out). Returns the mean
  // cross-entropy; grad (num_params() elements) = its gradient.
  double loss_and_grad(std::span<const T> params, const Matrix& x, std::span<const int> labels,
                       std::span<T> grad);

  struct Eval {
    double loss_sum = 0;
    size_t correct = 0;  // argmax(logits) == label, ties to the lowest class
  };
  Eval evaluate(std::span<const T> params, const Matrix& x, std::span<const int> labels);

 private:
  // Fills acts_[1..L]; acts_[L] holds log-probabilities afterwards. Returns the loss sum.
  double forward(std::span<const T> params, const Matrix& x, std::span<const int> labels);

  std::vector<size_t> widths_;
  std::vector<size_t> offsets_;  // weight offset of layer l at [l-1]; bias follows the weight
  size_t num_params_ = 0;
  std::vector<Matrix> acts_;    // acts_[l]: output of layer l (post-ReLU; log-probs for the last)
  std::vector<Matrix> deltas_;  // deltas_[l]: d loss / d (pre-activation of layer l)
};

extern template class MlpKernel<float>;
extern template class MlpKernel<double>;

}  // namespace compopt
