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
  compopt::python::bind_compressors(m);
  compopt::python::bind_collectives(m);
  compopt::python::bind_compressed_allreduce(m);
#ifdef COMPOPT_HAVE_SIMULATOR
  compopt::python::bind_simulator(m);
#endif
#ifdef COMPOPT_HAVE_CUDA
  compopt::python::bind_device_optimizer(m);
#endif
  // What this build holds (COMPOPT_PYTHON_ONLY builds have no simulator; CUDA when nvcc was found).
#ifdef COMPOPT_HAVE_SIMULATOR
  m.attr("has_simulator") = true;
#else
  m.attr("has_simulator") = false;
#endif
#ifdef COMPOPT_HAVE_CUDA
  m.attr("has_cuda") = true;
#else
  m.attr("has_cuda") = false;
#endif
}
