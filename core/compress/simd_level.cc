#include "core/compress/simd_level.h"

#include <algorithm>
#include <atomic>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace compopt {
namespace {

SimdLevel detect() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return SimdLevel::kPortable;
  const bool fma = (c >> 12) & 1u, osxsave = (c >> 27) & 1u, avx = (c >> 28) & 1u,
             f16c = (c >> 29) & 1u;
  if (!(fma && osxsave && avx && f16c)) return SimdLevel::kPortable;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6u) != 0x6u) return SimdLevel::kPortable;  // XMM and YMM state saved by the OS
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0 || ((b >> 5) & 1u) == 0) {
    return SimdLevel::kPortable;
  }
  return SimdLevel::kAvx2;
#else
  return SimdLevel::kPortable;
#endif
}

std::atomic<int> g_level{-1};  // -1: not decided yet

}  // namespace

SimdLevel detected_simd_level() {
  static const SimdLevel detected = detect();
  return detected;
}

SimdLevel simd_level() {
  const int level = g_level.load(std::memory_order_relaxed);
  return level < 0 ? detected_simd_level() : static_cast<SimdLevel>(level);
}

SimdLevel set_simd_level(SimdLevel level) {
  const SimdLevel previous = simd_level();
  const SimdLevel capped = std::min(level, detected_simd_level());
  g_level.store(static_cast<int>(capped), std::memory_order_relaxed);
  return previous;
}

const char* simd_level_name(SimdLevel level) {
  return level == SimdLevel::kAvx2 ? "avx2" : "portable";
}

}  // namespace compopt
