#pragma once
// Collects one value per rank from inside a backend run, for checks made after
// the run (references, bit-identity across ranks). Ranks write disjoint slots.

#include <vector>

namespace compopt::testing {

template <typename T>
class PerRank {
 public:
  explicit PerRank(int ranks) : values_(static_cast<size_t>(ranks)) {}
  T& operator[](int rank) { return values_[static_cast<size_t>(rank)]; }
  const T& operator[](int rank) const { return values_[static_cast<size_t>(rank)]; }
  int size() const { return static_cast<int>(values_.size()); }

 private:
  std::vector<T> values_;
};

}  // namespace compopt::testing
