// The full-precision collectives of Communicator (core/comm/communicator.h) on a World, in place
// and zero-copy on Python buffers: allreduce, reduce_scatter, allgather, alltoall, broadcast,
// barrier (the compressed allreduce: bind_compressed_allreduce.cc). The GIL is released while the
// ranks communicate. Every rank must call them in the same order with matching sizes.
// python/compopt/collectives.py wraps them for NumPy arrays and CPU torch tensors.
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>

#include "core/util/error.h"
#include "python/src/bindings.h"
#include "python/src/buffers.h"
#include "python/src/world.h"

namespace compopt::python {
namespace {

namespace py = pybind11;

// A keyword argument chosen from a table (op="sum", precision="fp16"): the value for `text`, or
// InvalidArgument naming the argument, the bad text and every accepted one.
template <typename T>
T choice(const std::map<std::string, T>& table, const std::string& text, const char* what) {
  const auto found = table.find(text);
  if (found != table.end()) return found->second;
  std::string expected;
  for (const auto& entry : table) expected += (expected.empty() ? "'" : ", '") + entry.first + "'";
  throw InvalidArgument(fmt::format("{}: '{}', expected one of {}", what, text, expected));
}

const std::map<std::string, ReduceOp> kReduceOps = {{"sum", ReduceOp::kSum},
                                                    {"mean", ReduceOp::kMean}};
const std::map<std::string, WirePrecision> kPrecisions = {{"fp32", WirePrecision::kFp32},
                                                          {"fp16", WirePrecision::kFp16}};

void allreduce(World& world, const py::buffer& x, const std::string& op,
               const std::string& precision) {
  const std::span<float> data = writable_floats(x, "x");
  const ReduceOp reduce = choice(kReduceOps, op, "op");
  const WirePrecision wire = choice(kPrecisions, precision, "precision");
  World::Use use(world);
  const py::gil_scoped_release release;
  use.comm().allreduce(data, reduce, wire);
}

void reduce_scatter(World& world, const py::buffer& x, const py::buffer& out,
                    const std::string& op) {
  const std::span<const float> in = readable_floats(x, "x");
  const std::span<float> mine = writable_floats(out, "out");
  const ReduceOp reduce = choice(kReduceOps, op, "op");
  World::Use use(world);
  const py::gil_scoped_release release;
  use.comm().reduce_scatter(in, mine, reduce);
}

void allgather(World& world, const py::buffer& x, const py::buffer& out) {
  require_same_dtype(x, "x", out, "out");
  const std::span<const std::byte> mine = readable_bytes(x, "x");
  const std::span<std::byte> all = writable_bytes(out, "out");
  World::Use use(world);
  const py::gil_scoped_release release;
  use.comm().allgather(mine, all);
}

void alltoall(World& world, const py::buffer& x, const py::buffer& out) {
  require_same_dtype(x, "x", out, "out");
  const std::span<const std::byte> send = readable_bytes(x, "x");
  const std::span<std::byte> recv = writable_bytes(out, "out");
  World::Use use(world);
  const py::gil_scoped_release release;
  use.comm().alltoall(send, recv);
}

void broadcast(World& world, const py::buffer& x, int root) {
  const std::span<std::byte> data = writable_bytes(x, "x");
  World::Use use(world);
  const py::gil_scoped_release release;
  use.comm().broadcast(data, root);
}

void barrier(World& world) {
  World::Use use(world);
  const py::gil_scoped_release release;
  use.comm().barrier();
}

}  // namespace

void bind_collectives(py::module_& m) {
  m.def("allreduce", &allreduce, py::arg("world"), py::arg("x"), py::arg("op") = "sum",
        py::arg("precision") = "fp32",
        "x (float32) := the sum or mean over the ranks; precision fp16 halves the wire");
  m.def("reduce_scatter", &reduce_scatter, py::arg("world"), py::arg("x"), py::arg("out"),
        py::arg("op") = "sum", "out := block rank of the reduction of x (size ranks * out)");
  m.def("allgather", &allgather, py::arg("world"), py::arg("x"), py::arg("out"),
        "out := every rank's x in rank order (out holds ranks * x)");
  m.def("alltoall", &alltoall, py::arg("world"), py::arg("x"), py::arg("out"),
        "block j of x goes to rank j; block i of out comes from rank i");
  m.def("broadcast", &broadcast, py::arg("world"), py::arg("x"), py::arg("root") = 0,
        "x := root's x on every rank");
  m.def("barrier", &barrier, py::arg("world"), "returns once every rank has entered it");
}

}  // namespace compopt::python
