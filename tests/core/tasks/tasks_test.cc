// Gradient checks and basic properties of the quadratic, logistic and Fashion-MNIST tasks.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "core/tasks/fashion_mnist_mlp.h"
#include "core/tasks/logistic_regression.h"
#include "core/tasks/mlp.h"
#include "core/tasks/noisy_quadratic.h"
#include "core/util/error.h"
#include "tests/core/tasks/fd_check.h"

namespace compopt {
namespace {

TEST(NoisyQuadratic, GradientMatchesFiniteDifferences) {
  NoisyQuadraticTask task({.dimension = 50,
                           .condition_number = 10,
                           .noise = 0.5,
                           .heterogeneity = 0.3,
                           .ranks = 4,
                           .train_size = 100,
                           .seed = 3});
  auto w = task.make_worker(2);
  const std::vector<size_t> batch = {1, 7, 42, 99};
  EXPECT_LT(testing::max_fd_error(*w, task.init_params(5), batch, 1e-2f), 1e-5);
}

TEST(NoisyQuadratic, OptimaCurvaturesAndNoise) {
  NoisyQuadraticTask task({.dimension = 20,
                           .condition_number = 100,
                           .noise = 0.0,
                           .heterogeneity = 0.5,
                           .ranks = 3,
                           .train_size = 10,
                           .seed = 1});
  EXPECT_NEAR(task.curvatures().front(), 1.0, 1e-12);
  EXPECT_NEAR(task.curvatures().back(), 0.01, 1e-12);
  for (size_t j = 0; j < 20; ++j) {
    double mean = 0;
    for (int r = 0; r < 3; ++r) mean += task.rank_optimum(r)[j] / 3;
    EXPECT_NEAR(mean, task.optimum()[j], 1e-12);
  }
  EXPECT_NE(task.rank_optimum(0)[0], task.optimum()[0]);
  // Without noise the gradient at the rank optimum is zero, and the test loss at c is zero.
  std::vector<float> at_c(task.optimum().begin(), task.optimum().end());
  auto w = task.make_worker(1);
  std::vector<float> rank_opt(task.rank_optimum(1).begin(), task.rank_optimum(1).end()), g(20);
  const std::vector<size_t> batch = {0, 1};
  w->loss_and_grad(rank_opt, batch, g);
  for (const float v : g) EXPECT_NEAR(v, 0.0f, 1e-6f);
  EXPECT_NEAR(w->evaluate(at_c, 0, 1).loss_sum, 0.0, 1e-10);
  EXPECT_THROW(task.make_worker(3), InvalidArgument);
}

TEST(NoisyQuadratic, NoiseShrinksWithBatch) {
  NoisyQuadraticTask task({.dimension = 200,
                           .condition_number = 1,
                           .noise = 1.0,
                           .heterogeneity = 0,
                           .ranks = 1,
                           .train_size = 4096,
                           .seed = 2});
  auto w = task.make_worker(0);
  std::vector<float> at_c(task.optimum().begin(), task.optimum().end()), g(200);
  auto noise_sq = [&](size_t b) {
    std::vector<size_t> batch(b);
    std::iota(batch.begin(), batch.end(), size_t{0});
    w->loss_and_grad(at_c, batch, g);
    double s = 0;
    for (const float v : g) s += v * v;
    return s / 200;
  };
  EXPECT_NEAR(noise_sq(1), 1.0, 0.3);
  EXPECT_NEAR(noise_sq(64), 1.0 / 64, 0.3 / 64);
}

TEST(LogisticRegression, GradientMatchesFiniteDifferences) {
  for (const bool separable : {true, false}) {
    LogisticRegressionTask task({.dimension = 10,
                                 .train_size = 64,
                                 .test_size = 16,
                                 .separable = separable,
                                 .label_noise = 0.2,
                                 .l2 = 0.1,
                                 .seed = 4});
    auto w = task.make_worker(0);
    auto params = task.init_params(1);
    for (auto& p : params) p *= 50;  // away from 0, where the logits are all ~0
    const std::vector<size_t> batch = {0, 3, 5, 8, 13, 21, 34, 55};
    EXPECT_LT(testing::max_fd_error(*w, params, batch, 1e-2f), 1e-4) << "separable=" << separable;
  }
}

TEST(LogisticRegression, SeparableLabelsFollowOneDirection) {
  LogisticRegressionTask sep(
      {.dimension = 5, .train_size = 2000, .test_size = 10, .separable = true});
  LogisticRegressionTask noisy({.dimension = 5,
                                .train_size = 2000,
                                .test_size = 10,
                                .separable = false,
                                .label_noise = 0.25});
  size_t differ = 0;
  for (size_t k = 0; k < 2000; ++k) differ += sep.train().y[k] != noisy.train().y[k];
  EXPECT_NEAR(differ / 2000.0, 0.25, 0.04);  // same features and direction, labels flipped
  EXPECT_EQ(sep.layout().tensor(0).name, "weight");
  EXPECT_EQ(sep.layout().tensor(1).name, "bias");
  auto w = sep.make_worker(0);
  const EvalSums e = w->evaluate(sep.init_params(1), 0, 10);
  EXPECT_EQ(e.count, 10);
  EXPECT_GE(e.correct, 0);
  EXPECT_LE(e.correct, 10);
}

std::shared_ptr<FashionMnistData> synthetic_fmnist(size_t train, size_t test) {
  auto d = std::make_shared<FashionMnistData>();
  std::mt19937 rng(9);
  for (auto [set, n] : {std::pair{&d->train, train}, {&d->test, test}}) {
    set->pixels.resize(n * kFashionMnistPixels);
    for (auto& p : set->pixels) p = static_cast<uint8_t>(rng() % 256);
    set->labels.resize(n);
    for (auto& l : set->labels) l = static_cast<uint8_t>(rng() % 10);
  }
  d->pixel_mean = 0.5f;
  d->pixel_std = 0.29f;
  return d;
}

TEST(FashionMnistMlp, LayoutAndInit) {
  FashionMnistMlp task(synthetic_fmnist(4, 2), {});
  EXPECT_EQ(task.layout().total(), 269322u);
  EXPECT_EQ(task.layout().tensor(0).name, "fc1.weight");
  EXPECT_EQ(task.layout().tensor(5).name, "fc3.bias");
  EXPECT_EQ(task.init_params(7), task.init_params(7));
  EXPECT_NE(task.init_params(7), task.init_params(8));
  const auto p = task.init_params(1);
  double sq = 0;
  for (size_t i = 0; i < 784 * 256; ++i) sq += p[i] * p[i];
  EXPECT_NEAR(sq / (784 * 256), 2.0 / 784, 0.1 * 2.0 / 784);  // He normal
  for (size_t i = 784 * 256; i < 784 * 256 + 256; ++i) EXPECT_EQ(p[i], 0.0f);
}

TEST(FashionMnistMlp, GradientMatchesDoubleReferenceAndFiniteDifferences) {
  const auto data = synthetic_fmnist(16, 8);
  FashionMnistMlp task(data, {.hidden = {12, 8}});
  auto w = task.make_worker(0);
  auto params = task.init_params(3);
  for (size_t i = 0; i < params.size(); ++i)
    params[i] += 0.01f * static_cast<float>((i * 7919) % 13) - 0.06f;
  const std::vector<size_t> batch = {3, 0, 15, 9};
  std::vector<float> grad(params.size());
  const double loss = w->loss_and_grad(params, batch, grad);

  // Reference: the double kernel on the same standardized inputs.
  MlpKernel<double> ref(task.widths());
  MlpKernel<double>::Matrix x(4, 784);
  std::vector<int> labels;
  for (size_t i = 0; i < batch.size(); ++i) {
    for (size_t p = 0; p < 784; ++p) {
      x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(p)) =
          (data->train.pixels[batch[i] * 784 + p] / 255.0 - data->pixel_mean) / data->pixel_std;
    }
    labels.push_back(data->train.labels[batch[i]]);
  }
  const std::vector<double> pd(params.begin(), params.end());
  std::vector<double> gd(pd.size());
  EXPECT_NEAR(loss, ref.loss_and_grad(pd, x, labels, gd), 1e-4);
  for (size_t j = 0; j < grad.size(); ++j)
    ASSERT_NEAR(grad[j], gd[j], 1e-4 * std::max(1.0, std::abs(gd[j]))) << j;

  // Direct finite differences on a sample of coordinates of every tensor (float params, h = 1e-2).
  std::vector<size_t> coords;
  for (const auto& t : task.layout().tensors()) {
    for (size_t k = 0; k < 5; ++k) coords.push_back(t.offset + (k * 104729) % t.size);
  }
  EXPECT_LT(testing::max_fd_error(*w, params, batch, 1e-2f, coords), 5e-3);
}

TEST(FashionMnistMlp, EvaluateCountsAndChunks) {
  const auto data = synthetic_fmnist(4, 23);
  FashionMnistMlp small_chunks(data, {.hidden = {6}, .eval_chunk = 5});
  FashionMnistMlp one_chunk(data, {.hidden = {6}, .eval_chunk = 100});
  const auto p = small_chunks.init_params(2);
  const EvalSums a = small_chunks.make_worker(0)->evaluate(p, 2, 23);
  const EvalSums b = one_chunk.make_worker(0)->evaluate(p, 2, 23);
  EXPECT_EQ(a.count, 21);
  EXPECT_EQ(a.correct, b.correct);
  EXPECT_NEAR(a.loss_sum, b.loss_sum, 1e-3);
}

}  // namespace
}  // namespace compopt
