#pragma once
// The kernel paths the bit-identity tests sweep: every SimdLevel this CPU supports x thread
// counts 1, 2, 3 and 8, plus inputs of awkward sizes and values.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/compress/parallel_for.h"
#include "core/compress/simd_level.h"

namespace compopt::testing {

struct KernelConfig {
  SimdLevel simd;
  size_t threads;
  std::string name() const {
    return std::string(simd_level_name(simd)) + " x " + std::to_string(threads) + " threads";
  }
};

inline std::vector<KernelConfig> kernel_configs() {
  std::vector<KernelConfig> configs;
  std::vector<SimdLevel> levels = {SimdLevel::kPortable};
  if (detected_simd_level() != SimdLevel::kPortable) levels.push_back(detected_simd_level());
  for (const SimdLevel level : levels) {
    for (const size_t threads : {1u, 2u, 3u, 8u}) configs.push_back({level, threads});
  }
  return configs;
}

// Applies a config for its lifetime.
class ScopedKernelConfig {
 public:
  explicit ScopedKernelConfig(const KernelConfig& config)
      : simd_(set_simd_level(config.simd)), threads_(thread_count()) {
    set_thread_count(config.threads);
  }
  ~ScopedKernelConfig() {
    set_simd_level(simd_);
    set_thread_count(threads_);
  }
  ScopedKernelConfig(const ScopedKernelConfig&) = delete;
  ScopedKernelConfig& operator=(const ScopedKernelConfig&) = delete;

 private:
  SimdLevel simd_;
  size_t threads_;
};

// Sizes around the 8-element bytes, the 65536-element norm chunks and the threading threshold.
inline const std::vector<size_t>& awkward_sizes() {
  static const std::vector<size_t> sizes = {
      0, 1, 7, 8, 9, 255, 65535, 65536, 65537, 3 * 65536 + 17, (1u << 18) + 5, (1u << 20) + 3};
  return sizes;
}

// Random floats of mixed magnitudes and signs, with zeros, -0.0 and subnormals sprinkled in.
inline std::vector<float> random_floats(size_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> kind(0, 99), exponent(-30, 30);
  std::vector<float> x(k);
  for (float& v : x) {
    const int c = kind(rng);
    if (c == 0) {
      v = 0.0f;
    } else if (c == 1) {
      v = -0.0f;
    } else if (c == 2) {
      v = std::numeric_limits<float>::denorm_min() * static_cast<float>(kind(rng) - 50);
    } else {
      v = std::ldexp(normal(rng), exponent(rng));
    }
  }
  return x;
}

// Bit-identical, except that any two NaNs count as equal: a NaN's sign and payload are not part
// of the contract (they depend on operand order inside the FPU, and GPUs produce canonical NaNs).
inline bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

// Index of the first element that is not same_bits, or -1.
inline long first_difference(const std::vector<float>& a, const std::vector<float>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (!same_bits(a[i], b[i])) return static_cast<long>(i);
  }
  return a.size() == b.size() ? -1 : static_cast<long>(std::min(a.size(), b.size()));
}

}  // namespace compopt::testing
