#include "python/src/buffers.h"

#include <fmt/format.h>

#include "core/util/error.h"

namespace compopt::python {
namespace {

pybind11::buffer_info float_buffer(const pybind11::buffer& buffer, const char* what) {
  pybind11::buffer_info info = buffer.request();
  if (info.format != pybind11::format_descriptor<float>::format() ||
      info.itemsize != sizeof(float)) {
    throw InvalidArgument(
        fmt::format("{}: dtype with format '{}', expected float32", what, info.format));
  }
  ssize_t expected_stride = sizeof(float);
  for (ssize_t i = info.ndim - 1; i >= 0; --i) {
    const auto dim = static_cast<size_t>(i);
    if (info.shape[dim] > 1 && info.strides[dim] != expected_stride) {
      throw InvalidArgument(
          fmt::format("{}: non-contiguous array (stride {} bytes on axis {}), expected a "
                      "C-contiguous one (call .contiguous() or numpy.ascontiguousarray)",
                      what, info.strides[dim], i));
    }
    expected_stride *= info.shape[dim];
  }
  return info;
}

}  // namespace

std::span<float> writable_floats(const pybind11::buffer& buffer, const char* what) {
  const pybind11::buffer_info info = float_buffer(buffer, what);
  if (info.readonly) {
    throw InvalidArgument(fmt::format("{}: read-only array, expected a writable one", what));
  }
  return {static_cast<float*>(info.ptr), static_cast<size_t>(info.size)};
}

std::span<const float> readable_floats(const pybind11::buffer& buffer, const char* what) {
  const pybind11::buffer_info info = float_buffer(buffer, what);
  return {static_cast<const float*>(info.ptr), static_cast<size_t>(info.size)};
}

}  // namespace compopt::python
