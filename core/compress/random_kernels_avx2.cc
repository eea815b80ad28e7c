// AVX2 kernels of random_kernels.h. Philox4x32-10 runs on 4 blocks per vector set, one block per
// 64-bit lane: _mm256_mul_epu32 multiplies the low 32 bits of each lane into a full 64-bit
// product (low word = lo, high word = hi), so a round is 2 multiplies, 2 shifts and 4 XORs; the
// high halves of the lanes carry garbage that no multiply reads and the output masks away.
#include "core/compress/random_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstring>

#define COMPOPT_AVX2 __attribute__((target("avx2,fma")))

namespace compopt {
namespace {

constexpr int kRounds = 10;
constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

struct Lanes {
  __m256i c0, c1, c2, c3;
};

struct RoundKeys {
  __m256i k0[kRounds], k1[kRounds];
};

COMPOPT_AVX2 inline RoundKeys round_keys(const RandomKey& key) {
  RoundKeys keys;
  uint32_t k0 = static_cast<uint32_t>(key.seed);
  uint32_t k1 = static_cast<uint32_t>(key.seed >> 32) ^ static_cast<uint32_t>(key.step >> 32);
  for (int r = 0; r < kRounds; ++r, k0 += kWeyl0, k1 += kWeyl1) {
    keys.k0[r] = _mm256_set1_epi32(static_cast<int>(k0));
    keys.k1[r] = _mm256_set1_epi32(static_cast<int>(k1));
  }
  return keys;
}

// Counters of blocks q .. q+3 (RandomKey::block).
COMPOPT_AVX2 inline Lanes counters(const RandomKey& key, uint64_t q) {
  const __m256i qv = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(q)),
                                      _mm256_setr_epi64x(0, 1, 2, 3));
  const auto stream = static_cast<uint32_t>(key.stream << 16);
  return {qv, _mm256_xor_si256(_mm256_srli_epi64(qv, 32), _mm256_set1_epi64x(stream)),
          _mm256_set1_epi64x(static_cast<uint32_t>(key.step)), _mm256_set1_epi64x(key.rank)};
}

COMPOPT_AVX2 inline void philox_round(Lanes& s, __m256i k0, __m256i k1) {
  const __m256i p0 = _mm256_mul_epu32(s.c0, _mm256_set1_epi64x(kMul0));
  const __m256i p1 = _mm256_mul_epu32(s.c2, _mm256_set1_epi64x(kMul1));
  s.c0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), s.c1), k0);
  s.c1 = p1;
  s.c2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), s.c3), k1);
  s.c3 = p0;
}

// The 16 words of the 4 blocks in element order, to out[0, 16).
COMPOPT_AVX2 inline void store_words(const Lanes& s, uint32_t* out) {
  const __m256i low = _mm256_set1_epi64x(0xFFFFFFFFll);
  const __m256i a = _mm256_or_si256(_mm256_and_si256(s.c0, low), _mm256_slli_epi64(s.c1, 32));
  const __m256i b = _mm256_or_si256(_mm256_and_si256(s.c2, low), _mm256_slli_epi64(s.c3, 32));
  const __m256i even = _mm256_unpacklo_epi64(a, b);  // blocks 0 | 2
  const __m256i odd = _mm256_unpackhi_epi64(a, b);   // blocks 1 | 3
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute2x128_si256(even, odd, 0x20));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8),
                      _mm256_permute2x128_si256(even, odd, 0x31));
}

COMPOPT_AVX2 void philox_words(const RandomKey& key, uint64_t first, size_t n, uint32_t* words) {
  size_t i = 0;
  for (; i < n && ((first + i) & 3u) != 0; ++i)
    words[i] = key.block((first + i) >> 2)[(first + i) & 3u];
  if (i == n) return;
  const RoundKeys keys = round_keys(key);
  uint64_t q = (first + i) >> 2;
  for (; i + 32 <= n; i += 32, q += 8) {  // two independent sets of 4 blocks
    Lanes a = counters(key, q), b = counters(key, q + 4);
    for (int r = 0; r < kRounds; ++r) {
      philox_round(a, keys.k0[r], keys.k1[r]);
      philox_round(b, keys.k0[r], keys.k1[r]);
    }
    store_words(a, words + i);
    store_words(b, words + i + 16);
  }
  for (; i < n; i += 16, q += 4) {
    Lanes a = counters(key, q);
    for (int r = 0; r < kRounds; ++r) philox_round(a, keys.k0[r], keys.k1[r]);
    if (i + 16 <= n) {
      store_words(a, words + i);
    } else {
      uint32_t tmp[16];
      store_words(a, tmp);
      std::memcpy(words + i, tmp, (n - i) * sizeof(uint32_t));
    }
  }
}

COMPOPT_AVX2 inline __m256i load_words(const uint32_t* w, size_t m) {
  alignas(32) uint32_t tmp[8] = {};
  std::memcpy(tmp, w, m * sizeof(uint32_t));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(tmp));
}

COMPOPT_AVX2 inline __m256 load_floats(const float* x, size_t m) {
  alignas(32) float tmp[8] = {};
  std::memcpy(tmp, x, m * sizeof(float));
  return _mm256_load_ps(tmp);
}

// Bits of 8 elements and the running NaN mask.
COMPOPT_AVX2 inline unsigned coin_bits(__m256 x, __m256i w, __m256& nan) {
  const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(w, 8)),
                                 _mm256_set1_ps(1.0f / 16777216.0f));
  const __m256 p = _mm256_mul_ps(_mm256_add_ps(x, _mm256_set1_ps(1.0f)), _mm256_set1_ps(0.5f));
  nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(u, p, _CMP_LT_OQ)));
}

COMPOPT_AVX2 bool binary_bits(const float* x, const uint32_t* words, size_t n, std::byte* bits) {
  auto* out = reinterpret_cast<uint8_t*>(bits);
  __m256 nan = _mm256_setzero_ps();
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + j));
    out[j / 8] = static_cast<uint8_t>(coin_bits(_mm256_loadu_ps(x + j), w, nan));
  }
  if (full < n) {  // padding lanes are x = 0, u = 0: their bits are masked off
    const size_t m = n - full;
    const unsigned b = coin_bits(load_floats(x + full, m), load_words(words + full, m), nan);
    out[full / 8] = static_cast<uint8_t>(b & ((1u << m) - 1u));
  }
  return _mm256_movemask_ps(nan) != 0;
}

// Fields of 8 elements: fabs clears the sign bit, the conversion truncates like the portable cast.
COMPOPT_AVX2 inline __m256i nbit_fields8(__m256 x, __m256i w, __m256 s, __m256 levels) {
  const __m256 t =
      _mm256_mul_ps(_mm256_div_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x), s), levels);
  const __m256i lower = _mm256_cvttps_epi32(t);
  const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(w, 8)),
                                 _mm256_set1_ps(1.0f / 16777216.0f));
  const __m256 up = _mm256_cmp_ps(u, _mm256_sub_ps(t, _mm256_cvtepi32_ps(lower)), _CMP_LT_OQ);
  const __m256i level = _mm256_sub_epi32(lower, _mm256_castps_si256(up));  // mask -1 adds 1
  const __m256 negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  return _mm256_or_si256(_mm256_srli_epi32(_mm256_castps_si256(negative), 31),
                         _mm256_slli_epi32(level, 1));
}

COMPOPT_AVX2 void nbit_fields(const float* x, const uint32_t* words, size_t n, float s,
                              float levels, uint32_t* field) {
  const __m256 sv = _mm256_set1_ps(s), lv = _mm256_set1_ps(levels);
  const size_t full = n / 8 * 8;
  for (size_t j = 0; j < full; j += 8) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + j));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(field + j),
                        nbit_fields8(_mm256_loadu_ps(x + j), w, sv, lv));
  }
  if (full < n) {  // padding lanes are x = 0: their fields are dropped
    alignas(32) uint32_t tmp[8];
    _mm256_store_si256(
        reinterpret_cast<__m256i*>(tmp),
        nbit_fields8(load_floats(x + full, n - full), load_words(words + full, n - full), sv, lv));
    std::memcpy(field + full, tmp, (n - full) * sizeof(uint32_t));
  }
}

constexpr RandomKernels kAvx2 = {philox_words, binary_bits, nbit_fields};

}  // namespace

const RandomKernels* avx2_random_kernels() { return &kAvx2; }

}  // namespace compopt

#else  // !__x86_64__

namespace compopt {
const RandomKernels* avx2_random_kernels() { return nullptr; }
}  // namespace compopt

#endif
