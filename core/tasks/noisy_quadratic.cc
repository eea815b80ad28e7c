#include "core/tasks/noisy_quadratic.h"

#include <fmt/format.h>

#include <cmath>
#include <random>

#include "core/util/error.h"

namespace compopt {
namespace {

class QuadraticWorker final : public TaskWorker {
 public:
  QuadraticWorker(const NoisyQuadraticTask& task, int rank, double noise)
      : task_(task),
        c_(task.rank_optimum(rank)),
        noise_(noise),
        xi_(task.curvatures().size()),
        mean_xi_(task.curvatures().size()) {}

  double loss_and_grad(std::span<const float> params, std::span<const size_t> batch,
                       std::span<float> grad) override {
    const auto& a = task_.curvatures();
    std::fill(mean_xi_.begin(), mean_xi_.end(), 0.0);
    for (const size_t k : batch) {
      if (k >= task_.train_size())
        throw InvalidArgument(fmt::format("example index {} out of range", k));
      task_.example_noise(k, xi_);
      for (size_t j = 0; j < xi_.size(); ++j) mean_xi_[j] += xi_[j];
    }
    const double inv = batch.empty() ? 0.0 : 1.0 / static_cast<double>(batch.size());
    double loss = 0;
    for (size_t j = 0; j < a.size(); ++j) {
      const double r = static_cast<double>(params[j]) - c_[j];
      const double n = noise_ * mean_xi_[j] * inv;
      loss += 0.5 * a[j] * r * r + n * r;
      grad[j] = static_cast<float>(a[j] * r + n);
    }
    return loss;
  }

  EvalSums evaluate(std::span<const float> params, size_t begin, size_t end) override {
    EvalSums sums;
    if (begin >= end) return sums;
    const auto& a = task_.curvatures();
    const auto& c = task_.optimum();
    for (size_t j = 0; j < a.size(); ++j) {
      const double r = static_cast<double>(params[j]) - c[j];
      sums.loss_sum += 0.5 * a[j] * r * r;
    }
    sums.count = 1;
    return sums;
  }

 private:
  const NoisyQuadraticTask& task_;
  const std::vector<double>& c_;
  double noise_;
  std::vector<double> xi_, mean_xi_;
};

}  // namespace

NoisyQuadraticTask::NoisyQuadraticTask(NoisyQuadraticOptions options) : options_(options) {
  const auto& o = options_;
  if (o.dimension == 0) throw InvalidArgument("quadratic: dimension 0, expected >= 1");
  if (!(o.condition_number >= 1.0) || !std::isfinite(o.condition_number)) {
    throw InvalidArgument(
        fmt::format("quadratic: condition_number {}, expected >= 1", o.condition_number));
  }
  if (!(o.noise >= 0.0) || !(o.heterogeneity >= 0.0)) {
    throw InvalidArgument("quadratic: noise and heterogeneity must be >= 0");
  }
  if (o.ranks < 1)
    throw InvalidArgument(fmt::format("quadratic: ranks {}, expected >= 1", o.ranks));
  if (o.train_size == 0) throw InvalidArgument("quadratic: train_size 0, expected >= 1");
  layout_ = ParamLayout::single(o.dimension, "x");
  const size_t d = o.dimension;
  a_.resize(d);
  c_.resize(d);
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (size_t j = 0; j < d; ++j) {
    const double frac = d > 1 ? static_cast<double>(j) / static_cast<double>(d - 1) : 0.0;
    a_[j] = std::pow(o.condition_number, -frac);
    c_[j] = uniform(rng);
  }
  const auto ranks = static_cast<size_t>(o.ranks);
  std::vector<std::vector<double>> delta(ranks, std::vector<double>(d));
  std::vector<double> mean(d, 0.0);
  for (auto& dr : delta) {
    for (size_t j = 0; j < d; ++j) {
      dr[j] = normal(rng);
      mean[j] += dr[j] / static_cast<double>(ranks);
    }
  }
  rank_c_.assign(ranks, c_);
  for (size_t i = 0; i < ranks; ++i) {
    for (size_t j = 0; j < d; ++j) rank_c_[i][j] += o.heterogeneity * (delta[i][j] - mean[j]);
  }
}

std::string NoisyQuadraticTask::describe() const {
  return fmt::format(
      "quadratic d={} condition_number={} noise={} heterogeneity={} ranks={} seed={}",
      options_.dimension, options_.condition_number, options_.noise, options_.heterogeneity,
      options_.ranks, options_.seed);
}

TaskFlops NoisyQuadraticTask::flops() const {
  const double d = 2.0 * static_cast<double>(options_.dimension);
  return {.forward_per_sample = d, .backward_per_sample = d, .layers = 1};
}

std::vector<float> NoisyQuadraticTask::init_params(uint64_t seed) const {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<float> x(options_.dimension);
  for (auto& v : x) v = static_cast<float>(normal(rng));
  return x;
}

void NoisyQuadraticTask::example_noise(size_t k, std::span<double> out) const {
  std::seed_seq seq{static_cast<uint32_t>(options_.seed),
                    static_cast<uint32_t>(options_.seed >> 32), static_cast<uint32_t>(k),
                    static_cast<uint32_t>(k >> 32), 0x9e3779b9u};
  std::mt19937_64 rng(seq);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (auto& v : out) v = normal(rng);
}

std::unique_ptr<TaskWorker> NoisyQuadraticTask::make_worker(int rank) const {
  if (rank < 0 || rank >= options_.ranks) {
    throw InvalidArgument(
        fmt::format("quadratic: worker for rank {}, but the task was built for {} ranks", rank,
                    options_.ranks));
  }
  return std::make_unique<QuadraticWorker>(*this, rank, options_.noise);
}

}  // namespace compopt
