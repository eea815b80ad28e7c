#pragma once
// Parameter grid of the conformance suite: backend (backends.h) x world size 1..9 x element
// count (0, 1, 7 and 1003, which no 8n divides).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/conformance/backends.h"

namespace compopt::testing {

struct GridPoint {
  size_t backend;
  int ranks;
  size_t count;
};

inline std::vector<GridPoint> conformance_grid() {
  std::vector<GridPoint> grid;
  for (size_t b = 0; b < conformance_backends().size(); ++b) {
    for (int n = 1; n <= 9; ++n) {
      for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{1003}})
        grid.push_back({b, n, count});
    }
  }
  return grid;
}

inline std::string grid_name(const ::testing::TestParamInfo<GridPoint>& info) {
  return conformance_backends()[info.param.backend].name + "_n" + std::to_string(info.param.ranks) +
         "_d" + std::to_string(info.param.count);
}

// Small integers: sums over <= 9 ranks are exact in fp32 and in fp16.
inline float integer_input(int rank, size_t i) {
  return static_cast<float>(static_cast<int>((static_cast<size_t>(rank) * 131 + i * 17) % 23) - 11);
}

inline std::vector<float> integer_inputs(int rank, size_t count) {
  std::vector<float> x(count);
  for (size_t i = 0; i < count; ++i) x[i] = integer_input(rank, i);
  return x;
}

class ConformanceTest : public ::testing::TestWithParam<GridPoint> {
 protected:
  const ConformanceBackend& backend() const { return conformance_backends()[GetParam().backend]; }
  int ranks() const { return GetParam().ranks; }
  size_t count() const { return GetParam().count; }
  void run(const std::function<void(Communicator&)>& fn, int gpus_per_node = 0) const {
    backend().run(ranks(), gpus_per_node, fn);
  }
};

}  // namespace compopt::testing
