// DeviceOptimizer in Python (built with CUDA only): the GPU optimizer of
// real_backend/cuda_kernels/device_optimizer.h over flat float32 CUDA buffers given as raw device
// pointers (torch's tensor.data_ptr()), communicating through the World's communicator (NCCL in
// place; other backends through pinned host copies). compopt/_cuda.py checks the tensors (CUDA,
// float32, contiguous, same device) before their pointers get here; here a pointer that is not
// device memory or a length that is not the layout's is refused with InvalidArgument.
//
// The configuration is validated (same InvalidArgument texts as Optimizer) before any GPU is
// touched. step() waits for the update to finish, so the caller reads params right after it;
// the caller must have finished writing grads (compopt/_cuda.py synchronizes torch's stream).
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/util/error.h"
#include "python/src/bindings.h"
#include "python/src/world.h"
#include "real_backend/cuda_kernels/device_optimizer.h"
#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::python {
namespace {

namespace py = pybind11;
using LayoutList = std::vector<std::pair<std::string, size_t>>;

ParamLayout validated_layout(const std::string& name, const HyperParamMap& hyper_params,
                             const LayoutList& layout) {
  ParamLayout out = ParamLayout::from_sizes(layout);
  cuda::device_optimizer_config(name, hyper_params, out);
  return out;
}

float* device_floats(uintptr_t address, const char* what) {
  auto* p = reinterpret_cast<float*>(address);  // NOLINT(performance-no-int-to-ptr)
  if (!cuda::is_device_pointer(p)) {
    throw InvalidArgument(
        fmt::format("DeviceOptimizer.step: {} (0x{:x}) is not CUDA device memory", what, address));
  }
  return p;
}

class DeviceOptimizerHandle {
 public:
  DeviceOptimizerHandle(const std::string& name, const HyperParamMap& hyper_params,
                        const LayoutList& layout, int device)
      : layout_(validated_layout(name, hyper_params, layout)),
        gpu_(device),
        optimizer_(gpu_, name, hyper_params, layout_) {}

  void step(uintptr_t params, uintptr_t grads, size_t n, World& world) {
    if (n != layout_.total()) {
      throw InvalidArgument(fmt::format(
          "DeviceOptimizer.step: n={} floats, but the layout holds {}", n, layout_.total()));
    }
    float* x = device_floats(params, "params");
    const float* g = device_floats(grads, "grads");
    World::Use use(world);
    const py::gil_scoped_release release;
    gpu_.activate();
    optimizer_.step(x, g, use.comm());
    gpu_.synchronize();
  }

  const cuda::DeviceOptimizer& optimizer() const { return optimizer_; }
  int device() const { return gpu_.device(); }

 private:
  ParamLayout layout_;
  cuda::GpuContext gpu_;
  cuda::DeviceOptimizer optimizer_;
};

py::dict metrics(const DeviceOptimizerHandle& handle) {
  const cuda::DeviceOptimizer& o = handle.optimizer();
  py::dict out;
  out["step"] = o.step_count();
  out["lr"] = o.last_lr();
  out["stage"] = stage_name(o.stage());
  out["freeze_step"] = o.freeze_step();
  out["layer_coefficients"] = o.layer_coefficients();
  return out;
}

py::array_t<float> to_array(const std::vector<float>& values) {
  return py::array_t<float>(static_cast<py::ssize_t>(values.size()), values.data());
}

}  // namespace

void bind_device_optimizer(py::module_& m) {
  py::register_exception<cuda::CudaError>(m, "CudaError", PyExc_RuntimeError);
  py::class_<DeviceOptimizerHandle>(m, "DeviceOptimizer",
                                    "A C++ optimizer whose state and update live on one GPU")
      .def(py::init<const std::string&, const HyperParamMap&, const LayoutList&, int>(),
           py::arg("name"), py::arg("hyper_params"), py::arg("layout"), py::arg("device") = -1,
           "As Optimizer, on CUDA device `device` (-1: $LOCAL_RANK modulo the device count)")
      .def("step", &DeviceOptimizerHandle::step, py::arg("params_ptr"), py::arg("grads_ptr"),
           py::arg("n"), py::arg("world"),
           "One step on n floats at device addresses params_ptr (updated) and grads_ptr")
      .def_property_readonly("device", &DeviceOptimizerHandle::device)
      .def_property_readonly("name",
                             [](const DeviceOptimizerHandle& h) { return h.optimizer().name(); })
      .def_property_readonly(
          "step_count", [](const DeviceOptimizerHandle& h) { return h.optimizer().step_count(); })
      .def_property_readonly(
          "stage", [](const DeviceOptimizerHandle& h) { return stage_name(h.optimizer().stage()); })
      .def("metrics", &metrics, "step, lr, stage, freeze_step, layer_coefficients")
      .def("first_moment",
           [](const DeviceOptimizerHandle& h) { return to_array(h.optimizer().first_moment()); })
      .def("second_moment",
           [](const DeviceOptimizerHandle& h) { return to_array(h.optimizer().second_moment()); });
  m.def("device_optimizer_names", &cuda::device_optimizer_names,
        "Canonical names of the optimizers with a GPU update");
}

}  // namespace compopt::python
