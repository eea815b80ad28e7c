// World (world.h) in Python: _compopt.World(backend, ranks, op_timeout_s); compopt.init() in
// python/compopt/_world.py chooses the backend from the launcher's environment.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "core/comm/compression_clock.h"
#include "python/src/bindings.h"
#include "python/src/world.h"

namespace compopt::python {
namespace {

// Everything this rank has sent so far, over all its communicators.
pybind11::dict traffic(World& world) {
  const TrafficTally total = world.comm().traffic().total();
  pybind11::dict out;
  out["bytes"] = total.bytes;
  out["messages"] = total.messages;
  out["inter_node_bytes"] = total.inter_node_bytes;
  return out;
}

}  // namespace

void bind_world(pybind11::module_& m) {
  namespace py = pybind11;
  py::class_<World>(m, "World", "This process's rank in a world of ranks (compopt.init())")
      .def(py::init<const std::string&, int, std::optional<double>, int>(), py::arg("backend"),
           py::arg("ranks"), py::arg("op_timeout_s") = std::nullopt, py::arg("gpus_per_node") = 0)
      .def_property_readonly("backend", &World::backend)
      .def_property_readonly("rank", &World::rank)
      .def_property_readonly("size", &World::size)
      .def_property_readonly("node", &World::node)
      .def_property_readonly("num_nodes", &World::num_nodes)
      .def_property_readonly("open", &World::open)
      .def("traffic", &traffic, "{bytes, messages, inter_node_bytes} this rank has sent so far")
      .def("close", &World::close, py::arg("failure") = std::nullopt,
           py::call_guard<py::gil_scoped_release>(),
           "Leaves the world; with failure, as a failed rank (peers are told)")
      .def("__repr__", [](World& w) {
        if (!w.open()) return "World(backend='" + w.backend() + "', closed)";
        return "World(backend='" + w.backend() + "', rank=" + std::to_string(w.rank()) +
               ", size=" + std::to_string(w.size()) + ")";
      });
  m.def("compression_seconds", &compression_seconds,
        "Seconds this thread has spent encoding and decoding in compressed allreduces");
}

}  // namespace compopt::python
