#pragma once
// The training loop's check of every gradient: the index of the first non-finite element.

#include <cstddef>
#include <span>

namespace compopt {

// Index of the first inf or NaN of x, or -1 when every element is finite.
std::ptrdiff_t first_non_finite(std::span<const float> x);

}  // namespace compopt
