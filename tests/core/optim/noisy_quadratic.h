#pragma once
// A small noisy quadratic for convergence tests (a proper task lands in
// core/tasks/ later): f(x) = 1/2 sum_j a_j (x_j - c_j)^2 with a_j in [0.5, 2];
// rank i's gradient at step t is a*(x - c) + sigma * xi with xi ~ N(0, 1)
// drawn from (seed, rank, step), so the averaged noise shrinks with the ranks.

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace compopt::testing {

class NoisyQuadratic {
 public:
  NoisyQuadratic(size_t d, double sigma, uint64_t seed) : a_(d), c_(d), sigma_(sigma), seed_(seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> ua(0.5, 2.0), uc(-1.0, 1.0);
    for (size_t j = 0; j < d; ++j) {
      a_[j] = ua(rng);
      c_[j] = uc(rng);
    }
  }

  std::vector<float> grad(int rank, int64_t step, const std::vector<float>& x) const {
    std::mt19937_64 rng(seed_ * 1000003u + static_cast<uint64_t>(rank) * 7919u +
                        static_cast<uint64_t>(step) * 104729u);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::vector<float> g(x.size());
    for (size_t j = 0; j < x.size(); ++j) {
      g[j] = static_cast<float>(a_[j] * (x[j] - c_[j]) + sigma_ * noise(rng));
    }
    return g;
  }

  // ||x - c|| / ||x0 - c|| for x0 = 0.
  double relative_distance(const std::vector<float>& x) const {
    double num = 0, den = 0;
    for (size_t j = 0; j < x.size(); ++j) {
      num += (x[j] - c_[j]) * (x[j] - c_[j]);
      den += c_[j] * c_[j];
    }
    return std::sqrt(num / den);
  }

 private:
  std::vector<double> a_, c_;
  double sigma_;
  uint64_t seed_;
};

}  // namespace compopt::testing
