// optimizer_spec(name) in Python: what the optimizer registry (core/optim/optimizer_registry.h)
// says about one optimizer -- canonical name, default learning rate and its keys with their
// defaults -- so compopt.torch fills torch's param_groups from the one table.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "core/optim/optimizer_registry.h"
#include "python/src/bindings.h"

namespace compopt::python {
namespace {

namespace py = pybind11;

py::dict optimizer_spec(const std::string& name) {
  const OptimizerEntry& entry = optimizer_registry().get(name);
  py::dict keys;
  for (const OptionKey& key : entry.keys) keys[py::str(key.name)] = key.fallback;
  for (const OptionKey& key : common_optimizer_keys()) keys[py::str(key.name)] = key.fallback;
  py::dict out;
  out["name"] = entry.name;
  out["default_lr"] = entry.default_lr;
  out["keys"] = keys;
  return out;
}

}  // namespace

void bind_optimizer_spec(py::module_& m) {
  m.def("optimizer_spec", &optimizer_spec, py::arg("name"),
        "Registry entry of an optimizer name or alias: {name, default_lr, keys: {key: default}}");
}

}  // namespace compopt::python
