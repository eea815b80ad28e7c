#pragma once
// Identifies the random stream of a stochastic encode (docs/algorithms.md "Random draws"): the draw
// for element i is keyed by (seed, rank, step, stream, global element index), so results do not
// depend on thread count, chunking or device.

#include <cstdint>

#include "core/compress/philox.h"

namespace compopt {

struct RandomKey {
  uint64_t seed = 0;
  uint64_t step = 0;
  uint32_t rank = 0;
  uint32_t stream = 0;        // distinguishes encodes of one step (worker = 0, server = 1, ...)
  uint64_t index_offset = 0;  // global index of the first element being encoded

  // Four uniform [0,1) draws for global elements 4q .. 4q+3.
  PhiloxCounter block(uint64_t q) const {
    const PhiloxCounter ctr = {static_cast<uint32_t>(q),
                               static_cast<uint32_t>(q >> 32) ^ (stream << 16),
                               static_cast<uint32_t>(step), rank};
    const PhiloxKey key = {static_cast<uint32_t>(seed),
                           static_cast<uint32_t>(seed >> 32) ^ static_cast<uint32_t>(step >> 32)};
    return philox4x32_10(ctr, key);
  }

  // One uniform [0,1) draw for global element `index`.
  float uniform(uint64_t index) const { return uniform_from_bits(block(index >> 2)[index & 3]); }
};

}  // namespace compopt
