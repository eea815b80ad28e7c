#include "core/compress/binary.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

#include "core/compress/parallel_for.h"
#include "core/compress/payload_check.h"
#include "core/compress/random_kernels.h"
#include "core/compress/sign_kernels.h"

namespace compopt {

namespace {

// Elements per thread task (a multiple of 8, so tasks start on payload bytes; bits depend only on
// the global index, so the split never shows) and per Philox batch inside a task.
constexpr size_t kTask = 65536;
constexpr size_t kBatch = 512;

}  // namespace

float BinaryCompressor::encode(std::span<const float> x, std::span<std::byte> payload,
                               const RandomKey& key) const {
  const size_t k = x.size();
  check_payload_size("binary encode", k, payload.size(), payload_bytes(k));
  const RandomKernels& kernels = random_kernels();
  std::atomic<bool> any_nan{false};
  parallel_for_ranges(k, kTask, [&](size_t, size_t begin, size_t end) {
    uint32_t words[kBatch];
    bool nan = false;
    for (size_t b = begin; b < end; b += kBatch) {
      const size_t n = std::min(kBatch, end - b);
      kernels.philox_words(key, key.index_offset + b, n, words);
      nan |= kernels.binary_bits(x.data() + b, words, n, payload.data() + b / 8);
    }
    if (nan) any_nan.store(true, std::memory_order_relaxed);
  });
  return any_nan.load(std::memory_order_relaxed) ? std::numeric_limits<float>::quiet_NaN() : 1.0f;
}

void BinaryCompressor::decode(float /*scale*/, std::span<const std::byte> payload,
                              std::span<float> out) const {
  const size_t k = out.size();
  check_payload_size("binary decode", k, payload.size(), payload_bytes(k));
  // 2b - 1 is the sign decode with scale 1.
  const SignKernels& kernels = sign_kernels();
  parallel_for_ranges(k, kTask, [&](size_t, size_t begin, size_t end) {
    kernels.decode(payload.data() + begin / 8, end - begin, 1.0f, out.data() + begin,
                   k >= kStreamMinElements);
  });
}

}  // namespace compopt
