#include "core/compress/half.h"

#include <algorithm>
#include <cstring>

#include "core/compress/parallel_for.h"
#include "core/compress/simd_level.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace compopt {

static_assert(std::endian::native == std::endian::little,
              "half payloads are little-endian; add byte swaps for big-endian hosts");

namespace {

constexpr size_t kTask = 65536;  // elements per thread task

void to_halves_portable(const float* x, size_t n, std::byte* out) {
  constexpr size_t kBlock = 256;
  uint16_t buf[kBlock];
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t m = std::min(kBlock, n - begin);
    for (size_t i = 0; i < m; ++i) buf[i] = float_to_half_bits(x[begin + i]);
    std::memcpy(out + 2 * begin, buf, 2 * m);
  }
}

void to_floats_portable(const std::byte* in, size_t n, float* out) {
  constexpr size_t kBlock = 256;
  uint16_t buf[kBlock];
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t m = std::min(kBlock, n - begin);
    std::memcpy(buf, in + 2 * begin, 2 * m);
    for (size_t i = 0; i < m; ++i) out[begin + i] = half_bits_to_float(buf[i]);
  }
}

#if defined(__x86_64__)
// F16C rounds to nearest even with the rounding mode given in the instruction (not MXCSR's),
// produces half subnormals, and keeps a NaN's sign and top 9 payload bits with the quiet bit set:
// the same bits as the integer code (tests compare them, also with FTZ/DAZ set).
__attribute__((target("avx2,f16c"))) void to_halves_avx2(const float* x, size_t n, std::byte* out) {
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + j), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * j), h);
  }
  to_halves_portable(x + full, n - full, out + 2 * full);
}

__attribute__((target("avx2,f16c"))) void to_floats_avx2(const std::byte* in, size_t n,
                                                         float* out) {
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * j));
    _mm256_storeu_ps(out + j, _mm256_cvtph_ps(h));
  }
  to_floats_portable(in + 2 * full, n - full, out + full);
}
#endif

}  // namespace

void floats_to_halves(std::span<const float> x, std::byte* out) {
  auto* kernel = &to_halves_portable;
#if defined(__x86_64__)
  if (simd_level() == SimdLevel::kAvx2) kernel = &to_halves_avx2;
#endif
  parallel_for_ranges(x.size(), kTask, [&](size_t, size_t begin, size_t end) {
    kernel(x.data() + begin, end - begin, out + 2 * begin);
  });
}

void halves_to_floats(const std::byte* in, std::span<float> out) {
  auto* kernel = &to_floats_portable;
#if defined(__x86_64__)
  if (simd_level() == SimdLevel::kAvx2) kernel = &to_floats_avx2;
#endif
  parallel_for_ranges(out.size(), kTask, [&](size_t, size_t begin, size_t end) {
    kernel(in + 2 * begin, end - begin, out.data() + begin);
  });
}

}  // namespace compopt
