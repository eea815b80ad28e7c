#include "core/compress/uniform_fill.h"

#include <algorithm>

#include "core/compress/random_kernels.h"

namespace compopt {

void fill_uniforms(const RandomKey& key, uint64_t first, std::span<float> u) {
  constexpr size_t kBatch = 512;
  const RandomKernels& kernels = random_kernels();
  uint32_t words[kBatch];
  for (size_t begin = 0; begin < u.size(); begin += kBatch) {
    const size_t n = std::min(kBatch, u.size() - begin);
    kernels.philox_words(key, first + begin, n, words);
    for (size_t i = 0; i < n; ++i) u[begin + i] = uniform_from_bits(words[i]);
  }
}

}  // namespace compopt
