// The extension module _compopt: the C++ libraries as the Python package compopt sees them
// (python/compopt/ wraps them in Python; docs/python.md).
#include "python/src/bindings.h"

PYBIND11_MODULE(_compopt, m) {
  m.doc() = "compopt's C++ core: optimizers, communicators, compressors and the simulator";
  compopt::python::bind_errors(m);
  compopt::python::bind_world(m);
  compopt::python::bind_optimizers(m);
  compopt::python::bind_optimizer_spec(m);
  compopt::python::bind_local_replay(m);
  compopt::python::bind_deepspeed(m);
}
