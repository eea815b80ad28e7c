#pragma once
// Noisy quadratic: rank i minimizes f_i(x) = 1/2 sum_j a_j (x_j - c_ij)^2.
// - Curvatures a_j are geometric from 1 down to 1/condition_number.
// - Global optimum c_j ~ U(-1, 1); rank optimum c_i = c + heterogeneity * delta_i
//   with delta_i ~ N(0, I) centered over ranks, so the average objective is
//   minimized exactly at c.
// - Training example k carries noise xi_k ~ N(0, I) (a pure function of seed and
//   k); its loss is f_i(x) + noise * xi_k . (x - c_i), so a batch's gradient is
//   a (x - c_i) + noise * mean(xi) and the noise shrinks with the global batch.
// - Test "set": one item whose loss is the excess global objective
//   1/2 sum_j a_j (x_j - c_j)^2 (no accuracy).
// Parameters: one tensor "x"; init_params draws x0 ~ N(0, I).
// FLOPs per example: forward 2d (the noise term xi_k . (x - c_i)), backward 2d
// (its share of the gradient), one layer.

#include <cstdint>
#include <vector>

#include "core/tasks/task.h"

namespace compopt {

struct NoisyQuadraticOptions {
  size_t dimension = 1000;
  double condition_number = 100;
  double noise = 1.0;
  double heterogeneity = 0.0;
  int ranks = 1;                // rank optima delta_i are drawn for this many ranks
  size_t train_size = 1 << 20;  // distinct noise draws (examples)
  uint64_t seed = 1;            // the problem instance (curvatures, optima, noise)
};

class NoisyQuadraticTask final : public Task {
 public:
  // Throws InvalidArgument for dimension 0, condition_number < 1, negative
  // noise or heterogeneity, ranks < 1 or train_size 0.
  explicit NoisyQuadraticTask(NoisyQuadraticOptions options);

  std::string name() const override { return "quadratic"; }
  std::string describe() const override;
  const ParamLayout& layout() const override { return layout_; }
  std::vector<float> init_params(uint64_t seed) const override;
  size_t train_size() const override { return options_.train_size; }
  size_t test_size() const override { return 1; }
  bool has_accuracy() const override { return false; }
  TaskFlops flops() const override;
  std::unique_ptr<TaskWorker> make_worker(int rank) const override;

  const std::vector<double>& curvatures() const { return a_; }
  const std::vector<double>& optimum() const { return c_; }
  const std::vector<double>& rank_optimum(int rank) const {
    return rank_c_.at(static_cast<size_t>(rank));
  }
  // Writes xi_k into out (dimension elements).
  void example_noise(size_t k, std::span<double> out) const;

 private:
  NoisyQuadraticOptions options_;
  ParamLayout layout_;
  std::vector<double> a_, c_;
  std::vector<std::vector<double>> rank_c_;
};

}  // namespace compopt
