// first_non_finite: the index of the first inf or NaN, found on either side of the 1024-element
// blocks it screens, and -1 for finite vectors including the largest floats and subnormals.
#include "core/train/first_non_finite.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace compopt {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

TEST(FirstNonFinite, FiniteVectorsGiveMinusOne) {
  EXPECT_EQ(first_non_finite({}), -1);
  std::vector<float> x(3001, 1.0f);
  x[5] = std::numeric_limits<float>::max();
  x[1024] = -std::numeric_limits<float>::max();
  x[2000] = std::numeric_limits<float>::denorm_min();
  x[3000] = -0.0f;
  EXPECT_EQ(first_non_finite(x), -1);
}

TEST(FirstNonFinite, FindsTheFirstInfOrNanInAnyBlock) {
  for (const size_t n : {size_t{1}, size_t{1023}, size_t{1024}, size_t{1025}, size_t{3001}}) {
    for (const size_t at : {size_t{0}, n / 2, n - 1}) {
      for (const float bad : {kInf, -kInf, kNan, -kNan}) {
        std::vector<float> x(n, 0.5f);
        x[at] = bad;
        if (at + 1 < n) x[n - 1] = kNan;  // a later one does not count
        EXPECT_EQ(first_non_finite(x), static_cast<std::ptrdiff_t>(at)) << n << " " << at;
      }
    }
  }
}

}  // namespace
}  // namespace compopt
