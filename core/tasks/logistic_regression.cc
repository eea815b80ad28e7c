#include "core/tasks/logistic_regression.h"

#include <fmt/format.h>

#include <cmath>
#include <random>

#include "core/util/error.h"

namespace compopt {
namespace {

// softplus(z) = log(1 + e^z), stable for large |z|.
double softplus(double z) { return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }
double sigmoid(double z) {
  if (z >= 0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}

class LogisticWorker final : public TaskWorker {
 public:
  explicit LogisticWorker(const LogisticRegressionTask& task)
      : task_(task), d_(task.options().dimension), grad_acc_(d_ + 1) {}

  double loss_and_grad(std::span<const float> params, std::span<const size_t> batch,
                       std::span<float> grad) override {
    const auto& set = task_.train();
    std::fill(grad_acc_.begin(), grad_acc_.end(), 0.0);
    double loss = 0;
    for (const size_t k : batch) {
      if (k >= set.y.size()) throw InvalidArgument(fmt::format("example index {} out of range", k));
      const float* x = set.x.data() + k * d_;
      const double z = logit(params, x);
      const double y = set.y[k];
      loss += softplus(z) - y * z;
      const double r = sigmoid(z) - y;
      for (size_t j = 0; j < d_; ++j) grad_acc_[j] += r * x[j];
      grad_acc_[d_] += r;
    }
    const double inv = batch.empty() ? 0.0 : 1.0 / static_cast<double>(batch.size());
    const double l2 = task_.options().l2;
    double w_sq = 0;
    for (size_t j = 0; j < d_; ++j) {
      w_sq += static_cast<double>(params[j]) * params[j];
      grad[j] = static_cast<float>(grad_acc_[j] * inv + l2 * params[j]);
    }
    grad[d_] = static_cast<float>(grad_acc_[d_] * inv);
    return loss * inv + 0.5 * l2 * w_sq;
  }

  EvalSums evaluate(std::span<const float> params, size_t begin, size_t end) override {
    const auto& set = task_.test();
    EvalSums sums;
    for (size_t k = begin; k < end && k < set.y.size(); ++k) {
      const double z = logit(params, set.x.data() + k * d_);
      const double y = set.y[k];
      sums.loss_sum += softplus(z) - y * z;
      sums.correct += ((z > 0) == (y > 0.5)) ? 1 : 0;
      sums.count += 1;
    }
    return sums;
  }

 private:
  double logit(std::span<const float> params, const float* x) const {
    double z = params[d_];
    for (size_t j = 0; j < d_; ++j) z += static_cast<double>(params[j]) * x[j];
    return z;
  }

  const LogisticRegressionTask& task_;
  size_t d_;
  std::vector<double> grad_acc_;
};

LogisticRegressionTask::Split make_split(size_t n, size_t d, const std::vector<double>& w_star,
                                         double flip, std::mt19937_64& rng,
                                         std::mt19937_64& flip_rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::bernoulli_distribution flip_label(flip);
  LogisticRegressionTask::Split s{std::vector<float>(n * d), std::vector<uint8_t>(n)};
  for (size_t k = 0; k < n; ++k) {
    double dot = 0;
    for (size_t j = 0; j < d; ++j) {
      const auto v = static_cast<float>(normal(rng));
      s.x[k * d + j] = v;
      dot += w_star[j] * v;
    }
    bool y = dot > 0;
    if (flip > 0 && flip_label(flip_rng)) y = !y;
    s.y[k] = y ? 1 : 0;
  }
  return s;
}

}  // namespace

LogisticRegressionTask::LogisticRegressionTask(LogisticRegressionOptions options)
    : options_(options) {
  const auto& o = options_;
  if (o.dimension == 0 || o.train_size == 0 || o.test_size == 0) {
    throw InvalidArgument("logistic: dimension, train_size and test_size must be >= 1");
  }
  if (!(o.label_noise >= 0.0 && o.label_noise <= 0.5)) {
    throw InvalidArgument(
        fmt::format("logistic: label_noise {}, expected a number in [0, 0.5]", o.label_noise));
  }
  if (!(o.l2 >= 0.0)) throw InvalidArgument(fmt::format("logistic: l2 {}, expected >= 0", o.l2));
  // The weight has torch.nn.Linear(d, 1)'s shape, 1 x d (a matrix PowerSGD may factor).
  layout_ = ParamLayout::from_shapes({{"weight", {1, o.dimension}}, {"bias", {1}}});
  std::mt19937_64 rng(o.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> w_star(o.dimension);
  for (auto& v : w_star) v = normal(rng);
  const double flip = o.separable ? 0.0 : o.label_noise;
  // Label flips draw from their own stream: features are the same with and without noise.
  std::mt19937_64 flip_rng(o.seed ^ 0x243f6a8885a308d3ull);
  train_ = make_split(o.train_size, o.dimension, w_star, flip, rng, flip_rng);
  test_ = make_split(o.test_size, o.dimension, w_star, flip, rng, flip_rng);
}

std::string LogisticRegressionTask::describe() const {
  return fmt::format("logistic d={} train={} test={} {} l2={} seed={}", options_.dimension,
                     options_.train_size, options_.test_size,
                     options_.separable
                         ? "separable"
                         : fmt::format("non-separable (label_noise={})", options_.label_noise),
                     options_.l2, options_.seed);
}

TaskFlops LogisticRegressionTask::flops() const {
  const double d = 2.0 * static_cast<double>(options_.dimension);
  return {.forward_per_sample = d, .backward_per_sample = d, .layers = 1};
}

std::vector<float> LogisticRegressionTask::init_params(uint64_t seed) const {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.01);
  std::vector<float> p(layout_.total(), 0.0f);
  for (size_t j = 0; j < options_.dimension; ++j) p[j] = static_cast<float>(normal(rng));
  return p;
}

std::unique_ptr<TaskWorker> LogisticRegressionTask::make_worker(int /*rank*/) const {
  return std::make_unique<LogisticWorker>(*this);
}

}  // namespace compopt
