// CompressedAllreduce in Python: the compressed allreduce of [1BA] §6 (flat,
// core/comm/collectives/compressed_allreduce.h) or of [BIR] §4 (hierarchical, split into intra-
// and inter-node groups once, hierarchical_allreduce.h) over one World, for vectors of one size,
// owning the worker and server error feedback between calls. Call k draws stochastic encodes
// from RandomKey{seed, step k}. It runs through the Communicator, so a backend with GPU kernels
// runs its own version. The GIL is released while the ranks communicate.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/util/error.h"
#include "core/util/memory_budget.h"
#include "python/src/bindings.h"
#include "python/src/buffers.h"
#include "python/src/world.h"

namespace compopt::python {
namespace {

namespace py = pybind11;

class CompressedAllreduce {
 public:
  // Collective over `world` when hierarchical (the group split); the World must outlive this
  // object (the binding keeps it alive).
  CompressedAllreduce(std::shared_ptr<Compressor> compressor, size_t size, World& world,
                      bool hierarchical, uint64_t seed)
      : compressor_(std::move(compressor)), size_(size), world_(world), seed_(seed) {
    if (!compressor_->chunkable()) {  // refused here, before any rank communicates
      throw InvalidArgument(
          fmt::format("compressor: {} is not chunkable, expected one whose "
                      "payload has fixed-width fields per element",
                      compressor_->name()));
    }
    World::Use use(world);
    require_memory(size, use.comm().size());
    if (!hierarchical) {
      state_ = CompressedAllreduceState(size, use.comm().size());
      return;
    }
    const py::gil_scoped_release release;
    groups_ = HierarchicalGroups::split(use.comm());
    state_ = hierarchical_state(size, *groups_);
  }

  // Refuses a size whose error feedback (a worker vector and a server chunk of 4-byte
  // elements) and messages (about 1 bit per element each way) would not fit this host, before
  // allocating: a bare std::bad_alloc or the kernel's OOM kill otherwise.
  static void require_memory(size_t size, int ranks) {
    const auto d = static_cast<double>(size);
    const double needed = 4.0 * d * (1.0 + 1.0 / ranks) + d / 4.0;
    MemoryBudget::of_this_machine().require(
        needed, fmt::format("CompressedAllreduce(size = {}) on {} ranks", size, ranks),
        "expected a smaller size (split the vector into several CompressedAllreduce objects "
        "run one after the other)");
  }

  // data := the compressed mean over every rank of the world.
  void run(const py::buffer& x) {
    const std::span<float> data = writable_floats(x, "x");
    if (data.size() != size_) {
      throw InvalidArgument(fmt::format(
          "x: {} elements, expected {} (the size this CompressedAllreduce was built for)",
          data.size(), size_));
    }
    World::Use use(world_);
    Communicator& comm = use.comm();
    const RandomKey key{.seed = seed_, .step = step_};
    {
      const py::gil_scoped_release release;
      if (groups_) {
        comm.hierarchical_compressed_allreduce(*groups_, data, *compressor_, state_, key);
      } else {
        comm.compressed_allreduce(data, *compressor_, state_, key);
      }
    }
    ++step_;
  }

  uint64_t step() const { return step_; }
  bool hierarchical() const { return groups_.has_value(); }
  ErrorFeedback& worker() { return state_.worker; }
  ErrorFeedback& server() { return state_.server; }
  void set_step(uint64_t step) { step_ = step; }
  void reset() {
    state_.worker.reset();
    state_.server.reset();
    step_ = 0;
  }

 private:
  std::shared_ptr<Compressor> compressor_;
  size_t size_;
  World& world_;
  std::optional<HierarchicalGroups> groups_;
  CompressedAllreduceState state_;
  uint64_t seed_;
  uint64_t step_ = 0;
};

py::array_t<float> copy_of(const ErrorFeedback& ef) {
  const std::span<const float> e = ef.error();
  return py::array_t<float>(static_cast<py::ssize_t>(e.size()), e.data());
}

void load_into(ErrorFeedback& ef, const py::buffer& values, const char* what) {
  const std::span<const float> in = readable_floats(values, what);
  if (in.size() != ef.size()) {
    throw InvalidArgument(fmt::format("{}: {} elements, expected {}", what, in.size(), ef.size()));
  }
  std::copy(in.begin(), in.end(), ef.mutable_error().begin());
}

void load_state(CompressedAllreduce& c, const py::buffer& worker, const py::buffer& server,
                uint64_t step) {
  load_into(c.worker(), worker, "worker_error");
  load_into(c.server(), server, "server_error");
  c.set_step(step);
}

}  // namespace

void bind_compressed_allreduce(py::module_& m) {
  py::class_<CompressedAllreduce>(m, "CompressedAllreduce",
                                  "Compressed mean of one vector size with its error feedback")
      .def(py::init<std::shared_ptr<Compressor>, size_t, World&, bool, uint64_t>(),
           py::arg("compressor"), py::arg("size"), py::arg("world"),
           py::arg("hierarchical") = false, py::arg("seed") = 0, py::keep_alive<1, 4>())
      .def("__call__", &CompressedAllreduce::run, py::arg("x"),
           "x (float32, writable, `size` elements) := the compressed mean over the ranks")
      .def_property_readonly("step", &CompressedAllreduce::step)
      .def_property_readonly("hierarchical", &CompressedAllreduce::hierarchical)
      .def_property_readonly("worker_error",
                             [](CompressedAllreduce& c) { return copy_of(c.worker()); })
      .def_property_readonly("server_error",
                             [](CompressedAllreduce& c) { return copy_of(c.server()); })
      .def("load_state", &load_state, py::arg("worker_error"), py::arg("server_error"),
           py::arg("step"), "Restores what worker_error, server_error and step returned")
      .def("reset", &CompressedAllreduce::reset, "Zero error feedback, step 0");
}

}  // namespace compopt::python
