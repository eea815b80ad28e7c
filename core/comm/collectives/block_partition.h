#pragma once
// Splits d elements into n contiguous blocks whose sizes differ by at most one
// (the first d % n blocks get the extra element). Used by the ring algorithms.

#include <cstddef>

namespace compopt {

struct BlockPartition {
  size_t total;
  int blocks;

  size_t size(int b) const {
    return total / blocks + (static_cast<size_t>(b) < total % blocks ? 1 : 0);
  }
  size_t offset(int b) const {
    const size_t base = total / blocks, extra = total % blocks, ub = static_cast<size_t>(b);
    return ub * base + (ub < extra ? ub : extra);
  }
};

}  // namespace compopt
