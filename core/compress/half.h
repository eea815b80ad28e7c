#pragma once
// IEEE 754 binary16 ("half") conversions written with integer bit manipulation, so results do
// not depend on the floating-point environment (rounding mode, FTZ/DAZ) or on F16C hardware.
//
// float -> half: round to nearest, ties to even; results below the half range become half
// subnormals or (signed) zero; magnitudes >= 65520 become infinity; NaN stays NaN (quiet bit set,
// sign and the top 9 payload bits kept). half -> float is exact; a NaN comes back quiet with its
// payload. Halves travel as little-endian uint16.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace compopt {

constexpr uint16_t float_to_half_bits(float value) {
  const uint32_t f = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t a = f & 0x7FFFFFFFu;  // |value|
  uint32_t h;
  if (a > 0x7F800000u) {  // NaN
    h = 0x7E00u | ((a >> 13) & 0x3FFu);
  } else if (a >= 0x477FF000u) {  // >= 65520 (halfway above 65504, ties to even = inf), or inf
    h = 0x7C00u;
  } else if (a >= 0x38800000u) {  // >= 2^-14: normal half
    // Rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest even;
    // a carry out of the mantissa correctly bumps the exponent.
    const uint32_t odd = (a >> 13) & 1u;
    h = (a + 0xFFFu + odd - ((127u - 15u) << 23)) >> 13;
  } else {                              // half subnormal or zero: units of 2^-24
    const uint32_t exponent = a >> 23;  // biased; 0 only for float zero/subnormal (-> half zero)
    const uint32_t mantissa = (a & 0x7FFFFFu) | (exponent != 0 ? 0x800000u : 0u);
    // value = mantissa * 2^(exponent-150) = (mantissa >> shift) units of 2^-24, plus a remainder.
    uint32_t shift = 126u - exponent;  // >= 14 here
    if (shift > 25u) shift = 25u;      // mantissa < 2^24, so everything rounds to 0 from 25 on
    const uint32_t q = mantissa >> shift;
    const uint32_t rem = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    h = q + ((rem > halfway || (rem == halfway && (q & 1u) != 0)) ? 1u : 0u);
  }
  return static_cast<uint16_t>(sign | h);
}

constexpr float half_bits_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  uint32_t f;
  if (exponent == 0x1Fu) {  // inf or NaN (NaN made quiet)
    f = 0x7F800000u | (mantissa << 13) | (mantissa != 0 ? 0x400000u : 0u);
  } else if (exponent != 0) {  // normal
    f = ((exponent + 127u - 15u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // zero
    f = 0;
  } else {  // subnormal: mantissa * 2^-24 with top bit p = bit_width-1 becomes the implicit one
    const uint32_t p = static_cast<uint32_t>(std::bit_width(mantissa)) - 1u;
    f = ((p + 127u - 24u) << 23) | ((mantissa << (23u - p)) & 0x7FFFFFu);
  }
  return std::bit_cast<float>(sign | f);
}

// Converts x.size() floats to halves, writing 2*x.size() bytes (little-endian) to out.
void floats_to_halves(std::span<const float> x, std::byte* out);
// Reads 2*out.size() bytes of little-endian halves from in and widens them into out.
void halves_to_floats(const std::byte* in, std::span<float> out);

}  // namespace compopt
