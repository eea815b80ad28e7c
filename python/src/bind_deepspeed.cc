// deepspeed_optimizer in Python: the C++ mapping of a DeepSpeed optimizer block onto the
// registry (core/optim/deepspeed_config.h), which compopt.torch.from_deepspeed builds from.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "core/optim/deepspeed_config.h"
#include "python/src/bindings.h"

namespace compopt::python {
namespace {

namespace py = pybind11;

py::dict as_dict(const DeepSpeedOptimizer& o) {
  py::dict out;
  out["optimizer"] = o.optimizer;
  out["keys"] = o.keys;
  out["ignored"] = o.ignored;
  return out;
}

}  // namespace

void bind_deepspeed(py::module_& m) {
  m.def(
      "deepspeed_optimizer",
      [](const std::string& json) { return as_dict(deepspeed_optimizer(json)); }, py::arg("json"),
      "A DeepSpeed config (or its optimizer block) as JSON text -> {optimizer, keys, ignored}");
  m.def(
      "deepspeed_optimizer_file",
      [](const std::string& path) { return as_dict(deepspeed_optimizer_file(path)); },
      py::arg("path"), "deepspeed_optimizer of a JSON file");
}

}  // namespace compopt::python
