#pragma once
// The parts of the extension module _compopt, one function per concept, each in its own
// bind_<concept>.cc; module.cc calls them in order (errors first: the others raise them).

#include <pybind11/pybind11.h>

namespace compopt::python {

void bind_errors(pybind11::module_& m);      // InvalidArgument, CommError as Python exceptions
void bind_world(pybind11::module_& m);       // World: this process's communicator (init())
void bind_optimizers(pybind11::module_& m);  // Optimizer over flat fp32 buffers
// DeviceOptimizer over CUDA buffers; only in builds with CUDA (COMPOPT_HAVE_CUDA).
void bind_device_optimizer(pybind11::module_& m);

}  // namespace compopt::python
