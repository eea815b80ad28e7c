#pragma once
// The parts of the extension module _compopt, one function per concept, each in its own
// bind_<concept>.cc; module.cc calls them in order (errors first: the others raise them).

#include <pybind11/pybind11.h>

namespace compopt::python {

void bind_errors(pybind11::module_& m);      // InvalidArgument, CommError as Python exceptions
void bind_world(pybind11::module_& m);       // World: this process's communicator (init())
void bind_optimizers(pybind11::module_& m);  // Optimizer over flat fp32 buffers
// optimizer_spec(name): what the optimizer registry says about one optimizer
void bind_optimizer_spec(pybind11::module_& m);
// run_local_steps: optimizers on the threads of a local world, for tests
void bind_local_replay(pybind11::module_& m);
// deepspeed_optimizer: a DeepSpeed optimizer block mapped onto the registry
void bind_deepspeed(pybind11::module_& m);

}  // namespace compopt::python
