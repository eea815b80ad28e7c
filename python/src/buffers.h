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

}  // namespace compopt::python
