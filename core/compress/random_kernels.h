#pragma once
// Kernels behind the stochastic compressors (internal to core/compress), one table per SimdLevel
// with bit-identical results: bulk Philox words in RandomKey's layout, the bits of `binary` and
// the fields of `nbit`.

#include <cstddef>
#include <cstdint>

#include "core/compress/random_key.h"

namespace compopt {

struct RandomKernels {
  // words[i] = key.block((first + i) >> 2)[(first + i) & 3] for i < n (any `first`).
  void (*philox_words)(const RandomKey& key, uint64_t first, size_t n, uint32_t* words);
  // Packs bits[0, ceil(n/8)) (unused high bits 0) with bit j = (u_j < (x_j + 1) * 0.5f), u_j =
  // uniform_from_bits(words[j]); that equals u_j < clamp((x_j + 1)/2, 0, 1) since 0 <= u_j < 1,
  // and NaN gives 0. Returns whether some x_j is NaN.
  bool (*binary_bits)(const float* x, const uint32_t* words, size_t n, std::byte* bits);
  // The fields of `nbit:B` (nbit.h) for a finite scale s > 0 and L = levels: field[i] = sign |
  // level << 1, sign = (x_i < 0), t = |x_i| / s * L, level = floor(t) + (u_i < t - floor(t)), u_i =
  // uniform_from_bits(words[i]). Requires |x_i| <= s (so 0 <= t <= L < 2^31 and truncation is
  // floor).
  void (*nbit_fields)(const float* x, const uint32_t* words, size_t n, float s, float levels,
                      uint32_t* field);
};

const RandomKernels& portable_random_kernels();
// nullptr when the build has no AVX2 variant (non-x86-64).
const RandomKernels* avx2_random_kernels();
// The table for simd_level().
const RandomKernels& random_kernels();

}  // namespace compopt
