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
};

class ParamLayout {
 public:
  ParamLayout() = default;
  // Tensors in order with the given sizes; offsets are the running sums.
  // Throws InvalidArgument for an empty name, a duplicate name or a zero size.
  static ParamLayout from_sizes(const std::vector<std::pair<std::string, size_t>>& tensors);
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
