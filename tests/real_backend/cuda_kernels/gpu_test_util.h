#pragma once
// Helpers of the GPU tests: skip (with the reason) without a CUDA device, device vectors, and
// an independent reference of the canonical sign scale.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "real_backend/cuda_kernels/gpu_context.h"

// Ends the calling test as skipped, saying why, when no CUDA device is usable.
#define COMPOPT_REQUIRE_GPU()                                               \
  do {                                                                      \
    if (::compopt::cuda::device_count() == 0) {                             \
      GTEST_SKIP() << "skipped: " << ::compopt::cuda::unavailable_reason(); \
    }                                                                       \
  } while (false)

namespace compopt::cuda::testing {

// A device copy of a host vector (plus `slack` spare elements at the end), and the way back.
template <typename T>
class DeviceVector {
 public:
  DeviceVector(GpuContext& gpu, const std::vector<T>& host, size_t slack = 0)
      : gpu_(gpu), size_(host.size()), buffer_((host.size() + slack + 1) * sizeof(T)) {
    gpu.zero(buffer_.data(), buffer_.size());
    gpu.copy(buffer_.data(), host.data(), host.size() * sizeof(T));
    gpu.synchronize();
  }
  DeviceVector(GpuContext& gpu, size_t size) : DeviceVector(gpu, std::vector<T>(size)) {}
  T* data() { return buffer_.as<T>(); }
  std::vector<T> host(size_t count, size_t offset = 0) const {
    std::vector<T> out(count);
    gpu_.copy(out.data(), buffer_.as<T>() + offset, count * sizeof(T));
    gpu_.synchronize();
    return out;
  }
  std::vector<T> host() const { return host(size_); }

 private:
  GpuContext& gpu_;
  size_t size_;
  DeviceBuffer buffer_;
};

inline uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Element-wise bit equality of two float vectors; reports the first difference.
inline ::testing::AssertionResult same_bits(const std::vector<float>& a,
                                            const std::vector<float>& b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << "sizes " << a.size() << " vs " << b.size();
  for (size_t i = 0; i < a.size(); ++i) {
    if (bits_of(a[i]) != bits_of(b[i])) {
      return ::testing::AssertionFailure()
             << "element " << i << ": " << a[i] << " (0x" << std::hex << bits_of(a[i]) << ") vs "
             << std::dec << b[i] << " (0x" << std::hex << bits_of(b[i]) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// The canonical sign scale of kernels.h, written from its definition: chunks of 65536 elements,
// 8 double lanes per chunk in index order, pairwise lane combination, chunk sums in order.
inline float canonical_sign_scale(const std::vector<float>& y) {
  constexpr size_t kChunk = 65536;
  if (y.empty()) return 0.0f;
  double total = 0.0;
  for (size_t begin = 0; begin < y.size(); begin += kChunk) {
    double a[8] = {};
    for (size_t i = begin; i < std::min(y.size(), begin + kChunk); ++i) {
      const double v = y[i];
      a[i % 8] += v * v;
    }
    total += ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  }
  return static_cast<float>(std::sqrt(total / static_cast<double>(y.size())));
}

// Normal(0, sigma) floats from a fixed seed.
inline std::vector<float> normal_floats(size_t k, uint32_t seed, float sigma = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> x(k);
  for (float& v : x) v = dist(rng);
  return x;
}

}  // namespace compopt::cuda::testing
