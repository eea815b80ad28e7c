#include "core/util/param_layout.h"

#include <set>

#include "core/util/error.h"

namespace compopt {

ParamLayout ParamLayout::from_sizes(const std::vector<std::pair<std::string, size_t>>& tensors) {
  ParamLayout layout;
  std::set<std::string> seen;
  for (const auto& [name, size] : tensors) {
    if (name.empty()) throw InvalidArgument("ParamLayout: tensor name must be non-empty");
    if (!seen.insert(name).second) {
      throw InvalidArgument("ParamLayout: duplicate tensor name '" + name + "'");
    }
    if (size == 0) {
      throw InvalidArgument("ParamLayout: tensor '" + name + "' has size 0, expected >= 1");
    }
    layout.tensors_.push_back({name, layout.total_, size});
    layout.total_ += size;
  }
  return layout;
}

ParamLayout ParamLayout::from_shapes(const std::vector<TensorShape>& tensors) {
  std::vector<std::pair<std::string, size_t>> sizes;
  for (const TensorShape& t : tensors) {
    size_t size = 1;
    for (const size_t dim : t.dims) {
      if (dim == 0) {
        throw InvalidArgument("ParamLayout: tensor '" + t.name +
                              "' has a dimension of 0, expected every dimension >= 1");
      }
      size *= dim;
    }
    sizes.emplace_back(t.name, size);
  }
  ParamLayout layout = from_sizes(sizes);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].dims.size() >= 2) layout.tensors_[i].rows = tensors[i].dims[0];
  }
  return layout;
}

ParamLayout ParamLayout::single(size_t d, const std::string& name) {
  return from_sizes({{name, d}});
}

}  // namespace compopt
