#pragma once
// Zero-copy views of Python buffers (NumPy arrays; CPU torch tensors arrive as their .numpy()
// view, see compopt/_arrays.py) as C++ spans. Anything but a C-contiguous float32 buffer (and a
// writable one where the call writes) is refused with InvalidArgument naming the argument, never
// copied: a silent copy would make in-place calls write nowhere.
#include <pybind11/pybind11.h>

#include <span>

namespace compopt::python {

std::span<float> writable_floats(const pybind11::buffer& buffer, const char* what);
std::span<const float> readable_floats(const pybind11::buffer& buffer, const char* what);

// The same for the byte-level collectives (allgather, alltoall, broadcast): a C-contiguous buffer
// of any dtype as its bytes.
std::span<std::byte> writable_bytes(const pybind11::buffer& buffer, const char* what);
std::span<const std::byte> readable_bytes(const pybind11::buffer& buffer, const char* what);
// Throws InvalidArgument unless `b` has the dtype of `a` (the buffers of one call share one).
void require_same_dtype(const pybind11::buffer& a, const char* a_what, const pybind11::buffer& b,
                        const char* b_what);

}  // namespace compopt::python
