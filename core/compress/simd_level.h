#pragma once
// Which instruction-set path the compression kernels take. The build is generic x86-64 (no
// -march), so the AVX2 kernels are compiled with function-level target attributes and chosen at
// run time; every path gives bit-identical results (tests compare them), so the level only
// changes speed.
//
// kAvx2 needs AVX2, FMA and F16C in CPUID and YMM state enabled by the OS (XGETBV); it is never
// detected on non-x86-64 builds. Thread-safe.

namespace compopt {

enum class SimdLevel { kPortable = 0, kAvx2 = 1 };

// The best level this CPU and build support.
SimdLevel detected_simd_level();
// The level kernels use now: detected_simd_level() unless lowered by set_simd_level.
SimdLevel simd_level();
// Uses min(level, detected_simd_level()) from now on (for tests and benchmarks); returns the
// level used before.
SimdLevel set_simd_level(SimdLevel level);

const char* simd_level_name(SimdLevel level);

}  // namespace compopt
