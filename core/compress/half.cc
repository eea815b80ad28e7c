#include "core/compress/half.h"

#include <algorithm>
#include <cstring>

namespace compopt {

static_assert(std::endian::native == std::endian::little,
              "half payloads are little-endian; add byte swaps for big-endian hosts");

void floats_to_halves(std::span<const float> x, std::byte* out) {
  constexpr size_t kBlock = 256;
  uint16_t buf[kBlock];
  for (size_t begin = 0; begin < x.size(); begin += kBlock) {
    const size_t n = std::min(kBlock, x.size() - begin);
    for (size_t i = 0; i < n; ++i) buf[i] = float_to_half_bits(x[begin + i]);
    std::memcpy(out + 2 * begin, buf, 2 * n);
  }
}

void halves_to_floats(const std::byte* in, std::span<float> out) {
  constexpr size_t kBlock = 256;
  uint16_t buf[kBlock];
  for (size_t begin = 0; begin < out.size(); begin += kBlock) {
    const size_t n = std::min(kBlock, out.size() - begin);
    std::memcpy(buf, in + 2 * begin, 2 * n);
    for (size_t i = 0; i < n; ++i) out[begin + i] = half_bits_to_float(buf[i]);
  }
}

}  // namespace compopt
