#include "core/compress/uniform_fill.h"

namespace compopt {

void fill_uniforms(const RandomKey& key, uint64_t first, std::span<float> u) {
  const size_t n = u.size();
  size_t i = 0;
  // Head: up to the next multiple of 4 in global index space.
  while (i < n && ((first + i) & 3u) != 0) {
    u[i] = key.uniform(first + i);
    ++i;
  }
  for (; i + 4 <= n; i += 4) {
    const PhiloxCounter r = key.block((first + i) >> 2);
    for (int j = 0; j < 4; ++j) u[i + j] = uniform_from_bits(r[j]);
  }
  for (; i < n; ++i) u[i] = key.uniform(first + i);
}

}  // namespace compopt
