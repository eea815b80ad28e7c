#pragma once
// ParamLayout: named tensors ("layers") laid out over one flat fp32 parameter
// vector. Tensors are contiguous, non-overlapping and cover [0, total()) in
// order; LAMB-style optimizers compute their trust ratios per tensor.
// Immutable after construction; safe to share between threads.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace compopt {

struct TensorSpec {
  std::string name;
  size_t offset = 0;
  size_t size = 0;
  // > 0: the tensor is a matrix of `rows` x size/rows, a tensor of shape (d0, d1, ...) viewed
  // as d0 x (d1*...) as PyTorch's PowerSGD hook does; 0: a vector (or shape unknown).
  size_t rows = 0;
};

// A tensor by its shape: empty or one dimension is a vector, two or more a matrix.
struct TensorShape {
  std::string name;
  std::vector<size_t> dims;
};

class ParamLayout {
 public:
  ParamLayout() = default;
  // Tensors in order with the given sizes; offsets are the running sums.
  // Throws InvalidArgument for an empty name, a duplicate name or a zero size.
  static ParamLayout from_sizes(const std::vector<std::pair<std::string, size_t>>& tensors);
  // Tensors in order with the given shapes: size = product of dims, rows = dims[0] when there
  // are two or more dims, else 0. Throws InvalidArgument as from_sizes, and for a zero dim.
  static ParamLayout from_shapes(const std::vector<TensorShape>& tensors);
  // One tensor named `name` covering d elements.
  static ParamLayout single(size_t d, const std::string& name = "params");

  size_t total() const { return total_; }
  size_t num_tensors() const { return tensors_.size(); }
  const TensorSpec& tensor(size_t i) const { return tensors_[i]; }
  const std::vector<TensorSpec>& tensors() const { return tensors_; }

  template <typename T>
  std::span<T> slice(std::span<T> flat, size_t i) const {
    return flat.subspan(tensors_[i].offset, tensors_[i].size);
  }

 private:
  std::vector<TensorSpec> tensors_;
  size_t total_ = 0;
};

}  // namespace compopt
