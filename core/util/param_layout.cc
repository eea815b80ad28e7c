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

ParamLayout ParamLayout::single(size_t d, const std::string& name) {
  return from_sizes({{name, d}});
}

}  // namespace compopt
