// Portable kernels of random_kernels.h, and the run-time choice of the table.
#include <algorithm>
#include <cmath>

#include "core/compress/bit_packing.h"
#include "core/compress/random_kernels.h"
#include "core/compress/simd_level.h"

namespace compopt {
namespace {

void philox_words(const RandomKey& key, uint64_t first, size_t n, uint32_t* words) {
  size_t i = 0;
  for (; i < n && ((first + i) & 3u) != 0; ++i)
    words[i] = key.block((first + i) >> 2)[(first + i) & 3u];
  for (; i + 4 <= n; i += 4) {
    const PhiloxCounter r = key.block((first + i) >> 2);
    for (size_t j = 0; j < 4; ++j) words[i + j] = r[j];
  }
  if (i < n) {
    const PhiloxCounter r = key.block((first + i) >> 2);
    for (size_t j = 0; i + j < n; ++j) words[i + j] = r[j];
  }
}

bool binary_bits(const float* x, const uint32_t* words, size_t n, std::byte* bits) {
  constexpr size_t kBlock = 256;  // fixed trip counts let the compiler vectorize
  uint8_t flags[kBlock];
  unsigned nan = 0;
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t m = std::min(kBlock, n - begin);
    const float* __restrict xb = x + begin;
    const uint32_t* __restrict wb = words + begin;
    for (size_t i = 0; i < m; ++i) {
      const float p = (xb[i] + 1.0f) * 0.5f;
      flags[i] = uniform_from_bits(wb[i]) < p ? 1 : 0;
      nan |= xb[i] != xb[i] ? 1u : 0u;
    }
    pack_flags(flags, m, bits + begin / 8);
  }
  return nan != 0;
}

void nbit_fields(const float* __restrict x, const uint32_t* __restrict words, size_t n, float s,
                 float levels, uint32_t* __restrict field) {
  for (size_t i = 0; i < n; ++i) {
    const float t = std::fabs(x[i]) / s * levels;
    const int32_t lower = static_cast<int32_t>(t);
    const int32_t up = uniform_from_bits(words[i]) < t - static_cast<float>(lower) ? 1 : 0;
    field[i] = (x[i] < 0.0f ? 1u : 0u) | static_cast<uint32_t>(lower + up) << 1;
  }
}

constexpr RandomKernels kPortable = {philox_words, binary_bits, nbit_fields};

}  // namespace

const RandomKernels& portable_random_kernels() { return kPortable; }

const RandomKernels& random_kernels() {
  if (simd_level() == SimdLevel::kAvx2) {
    if (const RandomKernels* avx2 = avx2_random_kernels()) return *avx2;
  }
  return kPortable;
}

}  // namespace compopt
