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
#include "python/src/bindings.h"
#include "python/src/buffers.h"
#include "python/src/world.h"

namespace compopt::python {
namespace {

namespace py = pybind11;
using LayoutList = std::vector<std::pair<std::string, size_t>>;

std::unique_ptr<Optimizer> build(const std::string& name, const HyperParamMap& hyper_params,
                                 const LayoutList& layout) {
  return make_optimizer(name, hyper_params, ParamLayout::from_sizes(layout));
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
           "name: registry name or alias; hyper_params: key -> text; layout: [(tensor, size)]")
      .def("step", &step, py::arg("params"), py::arg("grads"), py::arg("world"),
           "One step: params (float32, writable) updated in place from this rank's grads")
      .def_property_readonly("name", &Optimizer::name)
      .def_property_readonly("step_count", &Optimizer::step_count)
      .def_property_readonly("stage", [](const Optimizer& o) { return stage_name(o.stage()); })
      .def_property_readonly("layout", &layout_of)
      .def("metrics", &metrics, "Measured quantities after the latest step (None when absent)")
      .def("save_state", &save_state, "Everything later steps depend on, as bytes")
      .def("load_state", &load_state, py::arg("state"));
  m.def("optimizer_names", &optimizer_names, "Canonical optimizer names in registry order");
}

}  // namespace compopt::python
