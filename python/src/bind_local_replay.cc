// run_local_steps in Python: one optimizer per rank of an in-process world (the local backend's
// threads), fed given per-rank gradients step by step, exactly as `compopt train` drives them.
// A second path to the result of a launched job, for tests that compare a multi-process run of
// compopt.torch against the same C++ optimizers on threads.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/optim/optimizer_factory.h"
#include "core/util/error.h"
#include "python/src/bindings.h"
#include "real_backend/backend_registry.h"

namespace compopt::python {
namespace {

namespace py = pybind11;
using FloatArray = py::array_t<float, py::array::c_style>;
using LayoutList = std::vector<std::pair<std::string, size_t>>;

// grads: (steps, ranks, d) float32; params: (d,). Returns the parameters of every rank after
// the last step, (ranks, d).
FloatArray run_local_steps(const std::string& name, const HyperParamMap& hyper_params,
                           const LayoutList& layout, const FloatArray& params,
                           const FloatArray& grads, int gpus_per_node) {
  if (grads.ndim() != 3 || params.ndim() != 1 || grads.shape(2) != params.shape(0)) {
    throw InvalidArgument("run_local_steps: grads must be (steps, ranks, d) and params (d,), got " +
                          std::to_string(grads.ndim()) + "-d grads and " +
                          std::to_string(params.ndim()) + "-d params of matching d");
  }
  const auto steps = static_cast<size_t>(grads.shape(0));
  const auto ranks = static_cast<size_t>(grads.shape(1));
  const auto d = static_cast<size_t>(params.shape(0));
  FloatArray out({ranks, d});
  float* out_data = out.mutable_data();
  const float* g = grads.data();
  const std::span<const float> x0(params.data(), d);
  const ParamLayout param_layout = ParamLayout::from_sizes(layout);
  WorldOptions options;
  options.ranks = static_cast<int>(ranks);
  options.gpus_per_node = gpus_per_node;
  const py::gil_scoped_release release;
  backend_registry().get("local").run(options, [&](Communicator& comm) {
    const auto rank = static_cast<size_t>(comm.rank());
    const std::unique_ptr<Optimizer> optimizer = make_optimizer(name, hyper_params, param_layout);
    const std::span<float> x(out_data + rank * d, d);
    std::copy(x0.begin(), x0.end(), x.begin());
    for (size_t s = 0; s < steps; ++s) optimizer->step(x, {g + (s * ranks + rank) * d, d}, comm);
  });
  return out;
}

}  // namespace

void bind_local_replay(py::module_& m) {
  m.def("run_local_steps", &run_local_steps, py::arg("name"), py::arg("hyper_params"),
        py::arg("layout"), py::arg("params"), py::arg("grads"), py::arg("gpus_per_node") = 0,
        "Steps one C++ optimizer per rank of a local world of grads.shape[1] threads from params "
        "with grads[step, rank]; returns every rank's parameters, (ranks, d)");
}

}  // namespace compopt::python
