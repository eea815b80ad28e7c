#include "core/tasks/mlp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace compopt {
namespace {

template <typename T>
std::vector<T> random_vector(size_t n, uint64_t seed, double scale) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, scale);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(normal(rng));
  return v;
}

TEST(MlpLayout, NamesEveryTensorInOrder) {
  const ParamLayout layout = mlp_layout({784, 256, 256, 10});
  ASSERT_EQ(layout.num_tensors(), 6u);
  const std::vector<std::pair<std::string, size_t>> want = {
      {"fc1.weight", 784 * 256}, {"fc1.bias", 256},    {"fc2.weight", 256 * 256},
      {"fc2.bias", 256},         {"fc3.weight", 2560}, {"fc3.bias", 10}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(layout.tensor(i).name, want[i].first);
    EXPECT_EQ(layout.tensor(i).size, want[i].second);
  }
  EXPECT_EQ(layout.total(), 269322u);
}

// widths {2, 2, 2}: W1 = [[1, -1], [0.5, 2]], b1 = [0, -1], W2 = [[1, 0], [0, -1]], b2 = [0.5, 0].
// x = (1, 2): z1 = (-1, 3.5), a1 = (0, 3.5), logits = (0.5, -3.5).
// label 0: loss = log(1 + e^-4); label 1: loss = log(1 + e^4).
TEST(MlpKernel, LossOfTinyNetworkByHand) {
  MlpKernel<double> net({2, 2, 2});
  const std::vector<double> params = {1, -1, 0.5, 2, 0, -1, 1, 0, 0, -1, 0.5, 0};
  MlpKernel<double>::Matrix x(2, 2);
  x << 1, 2, 1, 2;
  const std::vector<int> labels = {0, 1};
  std::vector<double> grad(params.size());
  const double loss = net.loss_and_grad(params, x, labels, grad);
  const double l0 = std::log1p(std::exp(-4.0)), l1 = std::log1p(std::exp(4.0));
  EXPECT_NEAR(loss, (l0 + l1) / 2, 1e-12);

  // One example, label 0: d logits = (p0 - 1, 1 - p0) with p0 = sigmoid(4).
  MlpKernel<double>::Matrix x1(1, 2);
  x1 << 1, 2;
  const std::vector<int> label0 = {0};
  EXPECT_NEAR(net.loss_and_grad(params, x1, label0, grad), l0, 1e-12);
  const double p0 = 1.0 / (1.0 + std::exp(-4.0));
  EXPECT_NEAR(grad[10], p0 - 1, 1e-12);         // fc2.bias[0]
  EXPECT_NEAR(grad[11], 1 - p0, 1e-12);         // fc2.bias[1]
  EXPECT_NEAR(grad[6], 0.0, 1e-12);             // fc2.weight[0][0] * a1[0] = 0
  EXPECT_NEAR(grad[7], (p0 - 1) * 3.5, 1e-12);  // fc2.weight[0][1]
  EXPECT_NEAR(grad[4], 0.0, 1e-12);             // fc1.bias[0]: dead unit
  // fc1.bias[1] = d a1[1] = (p0-1)*W2[0][1] + (1-p0)*W2[1][1] = -(1 - p0).
  EXPECT_NEAR(grad[5], -(1 - p0), 1e-12);

  const auto eval = net.evaluate(params, x, labels);
  EXPECT_NEAR(eval.loss_sum, l0 + l1, 1e-12);
  EXPECT_EQ(eval.correct, 1u);
}

TEST(MlpKernel, GradientMatchesFiniteDifferencesInDouble) {
  const std::vector<size_t> widths = {5, 4, 3, 3};
  MlpKernel<double> net(widths);
  auto params = random_vector<double>(net.num_params(), 11, 0.7);
  const auto xs = random_vector<double>(6 * 5, 12, 1.0);
  MlpKernel<double>::Matrix x = Eigen::Map<const MlpKernel<double>::Matrix>(xs.data(), 6, 5);
  const std::vector<int> labels = {0, 2, 1, 1, 0, 2};
  std::vector<double> grad(params.size()), scratch(params.size());
  net.loss_and_grad(params, x, labels, grad);
  const double h = 1e-6;
  double max_err = 0;
  for (size_t j = 0; j < params.size(); ++j) {
    const double keep = params[j];
    params[j] = keep + h;
    const double up = net.loss_and_grad(params, x, labels, scratch);
    params[j] = keep - h;
    const double down = net.loss_and_grad(params, x, labels, scratch);
    params[j] = keep;
    const double fd = (up - down) / (2 * h);
    max_err = std::max(max_err, std::abs(fd - grad[j]) / std::max(1.0, std::abs(fd)));
  }
  EXPECT_LT(max_err, 1e-7);
}

TEST(MlpKernel, FloatAgreesWithDouble) {
  const std::vector<size_t> widths = {20, 16, 16, 10};
  MlpKernel<float> f(widths);
  MlpKernel<double> d(widths);
  const auto pf = random_vector<float>(f.num_params(), 3, 0.3);
  const std::vector<double> pd(pf.begin(), pf.end());
  const auto xs = random_vector<float>(32 * 20, 4, 1.0);
  MlpKernel<float>::Matrix xf = Eigen::Map<const MlpKernel<float>::Matrix>(xs.data(), 32, 20);
  MlpKernel<double>::Matrix xd = xf.cast<double>();
  std::vector<int> labels(32);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int>(i % 10);
  std::vector<float> gf(pf.size());
  std::vector<double> gd(pd.size());
  EXPECT_NEAR(f.loss_and_grad(pf, xf, labels, gf), d.loss_and_grad(pd, xd, labels, gd), 1e-5);
  for (size_t j = 0; j < gf.size(); ++j) ASSERT_NEAR(gf[j], gd[j], 1e-5) << j;
}

TEST(MlpKernel, RepeatedCallsAreDeterministic) {
  MlpKernel<float> net({8, 6, 4});
  const auto p = random_vector<float>(net.num_params(), 5, 0.5);
  const auto xs = random_vector<float>(4 * 8, 6, 1.0);
  MlpKernel<float>::Matrix x = Eigen::Map<const MlpKernel<float>::Matrix>(xs.data(), 4, 8);
  const std::vector<int> labels = {0, 1, 2, 3};
  std::vector<float> g1(p.size()), g2(p.size());
  const double l1 = net.loss_and_grad(p, x, labels, g1);
  const double l2 = net.loss_and_grad(p, x, labels, g2);
  EXPECT_EQ(l1, l2);
  EXPECT_EQ(g1, g2);
}

}  // namespace
}  // namespace compopt
