#include "core/optim/powersgd_compressor.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "core/compress/random_key.h"
#include "core/util/error.h"

namespace compopt {
namespace {

// The Philox stream of the PowerSGD draws (RandomKey::stream), apart from the compressors'.
constexpr uint32_t kPowerSgdStream = 7;

// Gram-Schmidt over the `cols` columns of the row-major rows x cols matrix `a`.
void orthogonalise(float* a, size_t rows, size_t cols, float epsilon) {
  for (size_t j = 0; j < cols; ++j) {
    double sum = 0;
    for (size_t i = 0; i < rows; ++i) sum += static_cast<double>(a[i * cols + j]) * a[i * cols + j];
    const auto norm = static_cast<float>(std::sqrt(sum));
    const float divisor = norm + epsilon;
    for (size_t i = 0; i < rows; ++i) {
      a[i * cols + j] = divisor > 0 ? a[i * cols + j] / divisor : 0.0f;
    }
    for (size_t k = j + 1; k < cols; ++k) {
      double dot = 0;
      for (size_t i = 0; i < rows; ++i)
        dot += static_cast<double>(a[i * cols + j]) * a[i * cols + k];
      const auto projection = static_cast<float>(dot);
      for (size_t i = 0; i < rows; ++i) a[i * cols + k] -= projection * a[i * cols + j];
    }
  }
}

// p (rows x r) := m (rows x cols) q (cols x r), accumulated in double.
void multiply(const float* m, const float* q, float* p, const PowerSgdMatrix& s) {
  std::vector<double> acc(s.rank);
  for (size_t i = 0; i < s.rows; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (size_t j = 0; j < s.cols; ++j) {
      const double v = m[i * s.cols + j];
      for (size_t k = 0; k < s.rank; ++k) acc[k] += v * q[j * s.rank + k];
    }
    for (size_t k = 0; k < s.rank; ++k) p[i * s.rank + k] = static_cast<float>(acc[k]);
  }
}

// q (cols x r) := m^T p, accumulated in double.
void multiply_transposed(const float* m, const float* p, float* q, const PowerSgdMatrix& s) {
  std::vector<double> acc(s.cols * s.rank, 0.0);
  for (size_t i = 0; i < s.rows; ++i) {
    for (size_t j = 0; j < s.cols; ++j) {
      const double v = m[i * s.cols + j];
      for (size_t k = 0; k < s.rank; ++k) acc[j * s.rank + k] += v * p[i * s.rank + k];
    }
  }
  std::transform(acc.begin(), acc.end(), q, [](double v) { return static_cast<float>(v); });
}

// out (rows x cols) := p q^T.
void decompress(const float* p, const float* q, float* out, const PowerSgdMatrix& s) {
  for (size_t i = 0; i < s.rows; ++i) {
    for (size_t j = 0; j < s.cols; ++j) {
      double v = 0;
      for (size_t k = 0; k < s.rank; ++k)
        v += static_cast<double>(p[i * s.rank + k]) * q[j * s.rank + k];
      out[i * s.cols + j] = static_cast<float>(v);
    }
  }
}

}  // namespace

void powersgd_random_factors(uint64_t seed, int64_t step, std::span<float> out) {
  const RandomKey key{.seed = seed, .step = static_cast<uint64_t>(step), .stream = kPowerSgdStream};
  for (size_t i = 0; i < out.size(); ++i) {
    const double u1 = 1.0 - static_cast<double>(key.uniform(2 * i));  // in (0, 1]
    const double u2 = key.uniform(2 * i + 1);
    out[i] =
        static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
  }
}

PowerSgdCompressor::PowerSgdCompressor(const ParamLayout& layout, PowerSgdOptions options,
                                       uint64_t seed)
    : options_(options), seed_(seed) {
  if (options_.rank < 1) {
    throw InvalidArgument("PowerSGD: matrix_approximation_rank = " + std::to_string(options_.rank) +
                          ", expected >= 1");
  }
  size_t q_size = 0;
  size_t p_size = 0;
  for (const TensorSpec& t : layout.tensors()) {
    const size_t rows = t.rows;
    const size_t cols = rows > 0 ? t.size / rows : 0;
    const size_t rank = std::min({rows, cols, static_cast<size_t>(options_.rank)});
    const double factored = static_cast<double>((rows + cols) * rank);
    if (rows == 0 || !(factored * options_.min_compression_rate < static_cast<double>(t.size))) {
      vectors_.push_back(t);
      continue;
    }
    matrices_.push_back({t.offset, rows, cols, rank, q_size, p_size});
    q_size += cols * rank;
    p_size += rows * rank;
  }
  size_t vector_size = 0;
  for (const TensorSpec& t : vectors_) vector_size += t.size;
  q_.resize(q_size);
  p_.resize(p_size);
  vector_buffer_.resize(vector_size);
  local_.resize(layout.total());
  if (options_.use_error_feedback) error_.assign(layout.total(), 0.0f);
  powersgd_random_factors(seed_, 0, q_);
}

void PowerSgdCompressor::allreduce_mean(Communicator& comm, std::span<const float> grads,
                                        std::span<float> out, int64_t step, WirePrecision wire) {
  if (options_.use_error_feedback) {
    std::transform(grads.begin(), grads.end(), error_.begin(), local_.begin(), std::plus<>());
  } else {
    std::copy(grads.begin(), grads.end(), local_.begin());
  }
  allreduce_vectors(comm, out, wire);
  if (!options_.warm_start) powersgd_random_factors(seed_, step, q_);
  allreduce_factors(comm, out, wire);
  if (options_.use_error_feedback) {
    std::transform(local_.begin(), local_.end(), out.begin(), error_.begin(), std::minus<>());
  }
}

void PowerSgdCompressor::allreduce_vectors(Communicator& comm, std::span<float> out,
                                           WirePrecision wire) {
  if (vector_buffer_.empty()) return;
  size_t at = 0;
  for (const TensorSpec& t : vectors_) {
    std::copy_n(local_.begin() + static_cast<std::ptrdiff_t>(t.offset), t.size,
                vector_buffer_.begin() + static_cast<std::ptrdiff_t>(at));
    at += t.size;
  }
  comm.allreduce(vector_buffer_, ReduceOp::kMean, wire);
  at = 0;
  for (const TensorSpec& t : vectors_) {
    std::copy_n(vector_buffer_.begin() + static_cast<std::ptrdiff_t>(at), t.size,
                out.begin() + static_cast<std::ptrdiff_t>(t.offset));
    at += t.size;
  }
}

void PowerSgdCompressor::allreduce_factors(Communicator& comm, std::span<float> out,
                                           WirePrecision wire) {
  if (matrices_.empty()) return;
  const float eps = options_.orthogonalization_epsilon;
  for (const PowerSgdMatrix& s : matrices_) {
    orthogonalise(&q_[s.q_offset], s.cols, s.rank, eps);
    multiply(&local_[s.offset], &q_[s.q_offset], &p_[s.p_offset], s);
  }
  // P is orthogonalised next, so its sum serves as well as its mean (as in the hook).
  comm.allreduce(p_, ReduceOp::kSum, wire);
  for (const PowerSgdMatrix& s : matrices_) {
    orthogonalise(&p_[s.p_offset], s.rows, s.rank, eps);
    multiply_transposed(&local_[s.offset], &p_[s.p_offset], &q_[s.q_offset], s);
  }
  comm.allreduce(q_, ReduceOp::kMean, wire);
  for (const PowerSgdMatrix& s : matrices_) {
    decompress(&p_[s.p_offset], &q_[s.q_offset], &out[s.offset], s);
  }
}

void PowerSgdCompressor::save(OptimizerState& state) const {
  state.put("powersgd.q", q_);
  if (options_.use_error_feedback) state.put("powersgd.error", error_);
}

void PowerSgdCompressor::load(const OptimizerState& state) {
  state.get("powersgd.q", q_);
  if (options_.use_error_feedback) state.get("powersgd.error", error_);
}

}  // namespace compopt
