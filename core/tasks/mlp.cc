#include "core/tasks/mlp.h"

#include <cmath>
#include <string>

#include "core/util/error.h"

namespace compopt {

ParamLayout mlp_layout(const std::vector<size_t>& widths) {
  if (widths.size() < 2) throw InvalidArgument("mlp_layout: expected at least 2 widths");
  std::vector<TensorShape> tensors;
  for (size_t l = 1; l < widths.size(); ++l) {
    const std::string name = "fc" + std::to_string(l);
    tensors.push_back({name + ".weight", {widths[l], widths[l - 1]}});
    tensors.push_back({name + ".bias", {widths[l]}});
  }
  return ParamLayout::from_shapes(tensors);
}

TaskFlops mlp_flops(const std::vector<size_t>& widths) {
  if (widths.size() < 2) throw InvalidArgument("mlp_flops: expected at least 2 widths");
  TaskFlops f;
  for (size_t l = 1; l < widths.size(); ++l) {
    const double products = 2.0 * static_cast<double>(widths[l - 1] * widths[l]);
    f.forward_per_sample += products;
    f.backward_per_sample += l == 1 ? products : 2 * products;
  }
  f.layers = static_cast<int>(widths.size() - 1);
  return f;
}

template <typename T>
MlpKernel<T>::MlpKernel(std::vector<size_t> widths) : widths_(std::move(widths)) {
  const ParamLayout layout = mlp_layout(widths_);
  for (size_t l = 1; l < widths_.size(); ++l) offsets_.push_back(layout.tensor(2 * (l - 1)).offset);
  num_params_ = layout.total();
  acts_.resize(widths_.size());
  deltas_.resize(widths_.size());
}

template <typename T>
double MlpKernel<T>::forward(std::span<const T> params, const Matrix& x,
                             std::span<const int> labels) {
  using ConstMap = Eigen::Map<const Matrix>;
  using ConstRow = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>;
  if (params.size() != num_params_ || static_cast<size_t>(x.cols()) != widths_[0] ||
      static_cast<size_t>(x.rows()) != labels.size()) {
    throw InvalidArgument("MlpKernel: params, input width or label count do not match the network");
  }
  const size_t layers = widths_.size() - 1;
  const Matrix* input = &x;
  for (size_t l = 1; l <= layers; ++l) {
    const auto rows = static_cast<Eigen::Index>(widths_[l]);
    const auto cols = static_cast<Eigen::Index>(widths_[l - 1]);
    ConstMap w(params.data() + offsets_[l - 1], rows, cols);
    ConstRow b(params.data() + offsets_[l - 1] + widths_[l] * widths_[l - 1], rows);
    Matrix& z = acts_[l];
    z.resize(x.rows(), rows);
    z.noalias() = *input * w.transpose();
    z.rowwise() += b;
    if (l < layers) z = z.cwiseMax(T(0));
    input = &z;
  }
  // Log-softmax in place; loss = -log p(label).
  Matrix& z = acts_[layers];
  double loss_sum = 0;
  for (Eigen::Index i = 0; i < z.rows(); ++i) {
    const int label = labels[static_cast<size_t>(i)];
    if (label < 0 || label >= z.cols()) throw InvalidArgument("MlpKernel: label out of range");
    auto row = z.row(i);
    const T max = row.maxCoeff();
    const T log_sum = max + std::log((row.array() - max).exp().sum());
    row.array() -= log_sum;
    loss_sum -= static_cast<double>(row(label));
  }
  return loss_sum;
}

template <typename T>
double MlpKernel<T>::loss_and_grad(std::span<const T> params, const Matrix& x,
                                   std::span<const int> labels, std::span<T> grad) {
  using Map = Eigen::Map<Matrix>;
  using RowMap = Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>;
  using ConstMap = Eigen::Map<const Matrix>;
  if (grad.size() != num_params_) throw InvalidArgument("MlpKernel: grad size mismatch");
  const double loss = forward(params, x, labels) / static_cast<double>(x.rows());
  const size_t layers = widths_.size() - 1;
  const T inv_batch = T(1) / static_cast<T>(x.rows());
  // d loss / d logits = (softmax - onehot) / batch.
  deltas_[layers] = acts_[layers].array().exp() * inv_batch;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    deltas_[layers](i, labels[static_cast<size_t>(i)]) -= inv_batch;
  }
  for (size_t l = layers; l >= 1; --l) {
    const auto rows = static_cast<Eigen::Index>(widths_[l]);
    const auto cols = static_cast<Eigen::Index>(widths_[l - 1]);
    const Matrix& input = l == 1 ? x : acts_[l - 1];
    const Matrix& delta = deltas_[l];
    Map gw(grad.data() + offsets_[l - 1], rows, cols);
    RowMap gb(grad.data() + offsets_[l - 1] + widths_[l] * widths_[l - 1], rows);
    gw.noalias() = delta.transpose() * input;
    gb = delta.colwise().sum();
    if (l == 1) break;
    ConstMap w(params.data() + offsets_[l - 1], rows, cols);
    Matrix& prev = deltas_[l - 1];
    prev.resize(x.rows(), cols);
    prev.noalias() = delta * w;
    // ReLU mask: the input of layer l is acts_[l-1] = max(z, 0).
    prev.array() *= (acts_[l - 1].array() > T(0)).template cast<T>();
  }
  return loss;
}

template <typename T>
typename MlpKernel<T>::Eval MlpKernel<T>::evaluate(std::span<const T> params, const Matrix& x,
                                                   std::span<const int> labels) {
  Eval e;
  e.loss_sum = forward(params, x, labels);
  const Matrix& logp = acts_[widths_.size() - 1];
  for (Eigen::Index i = 0; i < logp.rows(); ++i) {
    Eigen::Index best = 0;
    logp.row(i).maxCoeff(&best);
    if (best == labels[static_cast<size_t>(i)]) ++e.correct;
  }
  return e;
}

template class MlpKernel<float>;
template class MlpKernel<double>;

}  // namespace compopt
