// Compressor in Python: the compression operators of core/compress/ built by their registry spec
// ("sign", "nbit:4"; docs/compressors.md), encoding and decoding Python buffers zero-copy. A
// stochastic encode draws from RandomKey{seed, step, rank, stream, index_offset}.
// python/compopt/compress.py wraps them for NumPy arrays and CPU torch tensors.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "core/compress/compressor_registry.h"
#include "python/src/bindings.h"
#include "python/src/buffers.h"

namespace compopt::python {
namespace {

namespace py = pybind11;

std::shared_ptr<Compressor> build(const std::string& spec) { return make_compressor(spec); }

RandomKey key_of(uint64_t seed, uint64_t step, uint32_t rank, uint32_t stream,
                 uint64_t index_offset) {
  return RandomKey{seed, step, rank, stream, index_offset};
}

py::tuple encode(const Compressor& c, const py::buffer& x, const RandomKey& key) {
  const std::span<const float> in = readable_floats(x, "x");
  py::array_t<uint8_t> payload(static_cast<py::ssize_t>(c.payload_bytes(in.size())));
  const std::span<std::byte> out(reinterpret_cast<std::byte*>(payload.mutable_data()),
                                 static_cast<size_t>(payload.size()));
  float scale = 0.0f;
  {
    const py::gil_scoped_release release;
    scale = c.encode(in, out, key);
  }
  return py::make_tuple(scale, payload);
}

void decode(const Compressor& c, float scale, const py::buffer& payload, const py::buffer& out) {
  const std::span<const std::byte> bytes = readable_bytes(payload, "payload");
  const std::span<float> values = writable_floats(out, "out");
  const py::gil_scoped_release release;
  c.decode(scale, bytes, values);
}

float round_trip(const Compressor& c, const py::buffer& x, const py::buffer& out,
                 const RandomKey& key) {
  const std::span<const float> in = readable_floats(x, "x");
  const std::span<float> values = writable_floats(out, "out");
  const py::gil_scoped_release release;
  return c.round_trip(in, values, key);
}

}  // namespace

void bind_compressors(py::module_& m) {
  py::class_<RandomKey>(m, "RandomKey", "Seeds a stochastic encode (core/compress/random_key.h)")
      .def(py::init(&key_of), py::arg("seed") = 0, py::arg("step") = 0, py::arg("rank") = 0,
           py::arg("stream") = 0, py::arg("index_offset") = 0)
      .def_readonly("seed", &RandomKey::seed)
      .def_readonly("step", &RandomKey::step)
      .def_readonly("rank", &RandomKey::rank)
      .def_readonly("stream", &RandomKey::stream)
      .def_readonly("index_offset", &RandomKey::index_offset);
  py::class_<Compressor, std::shared_ptr<Compressor>>(m, "Compressor",
                                                      "A compression operator by registry spec")
      .def(py::init(&build), py::arg("spec"), "spec: 'name' or 'name:parameter'")
      .def_property_readonly("name", &Compressor::name)
      .def_property_readonly("has_scale", &Compressor::has_scale)
      .def_property_readonly("is_stochastic", &Compressor::is_stochastic)
      .def_property_readonly("chunkable", &Compressor::chunkable)
      .def("payload_bytes", &Compressor::payload_bytes, py::arg("k"))
      .def("wire_bytes", &Compressor::wire_bytes, py::arg("k"))
      .def("encode", &encode, py::arg("x"), py::arg("key"), "(scale, payload as uint8 array)")
      .def("decode", &decode, py::arg("scale"), py::arg("payload"), py::arg("out"))
      .def("round_trip", &round_trip, py::arg("x"), py::arg("out"), py::arg("key"),
           "out := decode(encode(x)); returns the scale");
  m.def(
      "compressor_names", [] { return compressor_registry().names(); },
      "Compressor names in registry order (some take ':parameter', see compressor_forms())");
  m.def("compressor_forms", &compressor_forms, "Every accepted spec form, for messages");
}

}  // namespace compopt::python
