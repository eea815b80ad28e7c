#include "python/src/buffers.h"

#include <fmt/format.h>

#include "core/util/error.h"

namespace compopt::python {
namespace {

enum class Access { kRead, kWrite };
enum class Dtype { kAny, kFloat32 };

// The buffer's description, after checking its dtype, that it is C-contiguous and, for kWrite,
// writable.
pybind11::buffer_info contiguous_buffer(const pybind11::buffer& buffer, const char* what,
                                        Access access, Dtype dtype) {
  pybind11::buffer_info info = buffer.request();
  if (dtype == Dtype::kFloat32 && (info.format != pybind11::format_descriptor<float>::format() ||
                                   info.itemsize != sizeof(float))) {
    throw InvalidArgument(
        fmt::format("{}: dtype with format '{}', expected float32", what, info.format));
  }
  ssize_t expected_stride = info.itemsize;
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
  if (access == Access::kWrite && info.readonly) {
    throw InvalidArgument(fmt::format("{}: read-only array, expected a writable one", what));
  }
  return info;
}

}  // namespace

std::span<float> writable_floats(const pybind11::buffer& buffer, const char* what) {
  const pybind11::buffer_info info =
      contiguous_buffer(buffer, what, Access::kWrite, Dtype::kFloat32);
  return {static_cast<float*>(info.ptr), static_cast<size_t>(info.size)};
}

std::span<const float> readable_floats(const pybind11::buffer& buffer, const char* what) {
  const pybind11::buffer_info info =
      contiguous_buffer(buffer, what, Access::kRead, Dtype::kFloat32);
  return {static_cast<const float*>(info.ptr), static_cast<size_t>(info.size)};
}

std::span<std::byte> writable_bytes(const pybind11::buffer& buffer, const char* what) {
  const pybind11::buffer_info info = contiguous_buffer(buffer, what, Access::kWrite, Dtype::kAny);
  return {static_cast<std::byte*>(info.ptr), static_cast<size_t>(info.size * info.itemsize)};
}

std::span<const std::byte> readable_bytes(const pybind11::buffer& buffer, const char* what) {
  const pybind11::buffer_info info = contiguous_buffer(buffer, what, Access::kRead, Dtype::kAny);
  return {static_cast<const std::byte*>(info.ptr), static_cast<size_t>(info.size * info.itemsize)};
}

void require_same_dtype(const pybind11::buffer& a, const char* a_what, const pybind11::buffer& b,
                        const char* b_what) {
  const pybind11::buffer_info x = a.request();
  const pybind11::buffer_info y = b.request();
  if (x.format != y.format || x.itemsize != y.itemsize) {
    throw InvalidArgument(fmt::format("{}: dtype with format '{}', expected that of {} ('{}')",
                                      b_what, y.format, a_what, x.format));
  }
}

}  // namespace compopt::python
