// Optimizer in Python: the C++ optimizers (core/optim/) over flat fp32 buffers, built by name
// from the registry exactly as `compopt train` builds them. compopt.torch wraps them as
// torch.optim.Optimizer subclasses.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/optim/optimizer_factory.h"
#include "core/util/error.h"
#include "python/src/bindings.h"
#include "python/src/buffers.h"
#include "python/src/world.h"

namespace compopt::python {
namespace {

namespace py = pybind11;
using LayoutList = std::vector<std::pair<std::string, size_t>>;

// The layout's tensors with their shapes (so PowerSGD knows the matrices), or by size alone
// when `shapes` is empty.
ParamLayout param_layout(const LayoutList& layout, const std::vector<std::vector<size_t>>& shapes) {
  if (shapes.empty()) return ParamLayout::from_sizes(layout);
  if (shapes.size() != layout.size()) {
    throw InvalidArgument("Optimizer: " + std::to_string(shapes.size()) + " shapes for " +
                          std::to_string(layout.size()) + " tensors, expected one per tensor");
  }
  std::vector<TensorShape> tensors;
  for (size_t i = 0; i < layout.size(); ++i) tensors.push_back({layout[i].first, shapes[i]});
  ParamLayout out = ParamLayout::from_shapes(tensors);
  for (size_t i = 0; i < layout.size(); ++i) {
    if (out.tensor(i).size != layout[i].second) {
      throw InvalidArgument("Optimizer: tensor '" + layout[i].first + "' has size " +
                            std::to_string(layout[i].second) + " but its shape holds " +
                            std::to_string(out.tensor(i).size) + " elements, expected equal");
    }
  }
  return out;
}

std::unique_ptr<Optimizer> build(const std::string& name, const HyperParamMap& hyper_params,
                                 const LayoutList& layout,
                                 const std::vector<std::vector<size_t>>& shapes) {
  return make_optimizer(name, hyper_params, param_layout(layout, shapes));
}

void step(Optimizer& optimizer, const py::buffer& params, const py::buffer& grads, World& world) {
  const std::span<float> x = writable_floats(params, "params");
  const std::span<const float> g = readable_floats(grads, "grads");
  World::Use use(world);
  const py::gil_scoped_release release;
  optimizer.step(x, g, use.comm());
}

py::dict metrics(const Optimizer& optimizer) {
  const OptimizerMetrics m = optimizer.metrics();
  py::dict out;
  out["step"] = m.step;
  out["lr"] = m.lr;
  out["stage"] = stage_name(optimizer.stage());
  out["variance_norm"] = m.variance_norm;
  out["variance_ratio"] = m.variance_ratio;
  out["variance_l1"] = m.variance_l1;
  out["layer_coefficients"] = m.layer_coefficients;
  out["layer_ratios"] = m.layer_ratios;
  return out;
}

LayoutList layout_of(const Optimizer& optimizer) {
  LayoutList out;
  for (const TensorSpec& t : optimizer.layout().tensors()) out.emplace_back(t.name, t.size);
  return out;
}

py::bytes save_state(const Optimizer& optimizer) {
  const std::vector<std::byte> blob = optimizer.save_bytes();
  return {reinterpret_cast<const char*>(blob.data()), blob.size()};
}

void load_state(Optimizer& optimizer, const py::bytes& blob) {
  const std::string text = blob;
  optimizer.load_bytes(std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace

void bind_optimizers(py::module_& m) {
  py::class_<Optimizer>(m, "Optimizer", "A C++ optimizer over one flat fp32 parameter vector")
      .def(py::init(&build), py::arg("name"), py::arg("hyper_params"), py::arg("layout"),
           py::arg("shapes") = std::vector<std::vector<size_t>>{},
           "name: registry name or alias; hyper_params: key -> text; layout: [(tensor, size)]; "
           "shapes: each tensor's shape (optional; PowerSGD factors those with two or more dims)")
      .def("step", &step, py::arg("params"), py::arg("grads"), py::arg("world"),
           "One step: params (float32, writable) updated in place from this rank's grads")
      .def_property_readonly("name", &Optimizer::name)
      .def_property_readonly("step_count", &Optimizer::step_count)
      .def_property_readonly("stage", [](const Optimizer& o) { return stage_name(o.stage()); })
      .def_property_readonly("layout", &layout_of)
      .def("metrics", &metrics, "Measured quantities after the latest step (None when absent)")
      .def("save_state", &save_state, "Everything later steps depend on, as bytes")
      .def(
          "state_tensors", [](const Optimizer& o) { return o.save_state().tensors; },
          "The state's named fp32 tensors (moments, error feedback, PowerSGD's Q) as lists")
      .def("load_state", &load_state, py::arg("state"));
  m.def("optimizer_names", &optimizer_names, "Canonical optimizer names in registry order");
}

}  // namespace compopt::python
