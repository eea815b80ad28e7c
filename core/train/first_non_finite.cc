#include "core/train/first_non_finite.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace compopt {

// Blocks are screened with a branch-free test of
// the exponent bits (all ones: inf or NaN), which the compiler vectorizes; only a block that
// has one is searched element by element.
std::ptrdiff_t first_non_finite(std::span<const float> x) {
  constexpr size_t kBlock = 1024;
  constexpr uint32_t kExponent = 0x7f800000u;
  for (size_t begin = 0; begin < x.size(); begin += kBlock) {
    const size_t end = std::min(x.size(), begin + kBlock);
    uint32_t bad = 0;
    for (size_t i = begin; i < end; ++i) {
      bad |= static_cast<uint32_t>((std::bit_cast<uint32_t>(x[i]) & kExponent) == kExponent);
    }
    if (bad == 0) continue;
    for (size_t i = begin; i < end; ++i) {
      if (!std::isfinite(x[i])) return static_cast<std::ptrdiff_t>(i);
    }
  }
  return -1;
}

}  // namespace compopt
