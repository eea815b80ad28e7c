#include "real_backend/cuda_kernels/device_mlp.h"

#include <cublas_v2.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>

#include "core/tasks/mlp.h"
#include "core/util/error.h"
#include "real_backend/cuda_kernels/cuda_error.h"
#include "real_backend/cuda_kernels/mlp_kernels.h"

namespace compopt::cuda {
namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw CudaError(fmt::format("{}: {}", what, cublasGetStatusString(status)));
  }
}

int as_int(size_t v) {
  if (v > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw InvalidArgument(fmt::format("DeviceMlp: dimension {} exceeds cuBLAS's int range", v));
  }
  return static_cast<int>(v);
}

// Row-major C [m x n] = A [m x k] * B^T, B row-major [n x k] (cuBLAS sees the transposes).
void gemm_abt(cublasHandle_t h, const float* a, const float* b, float* c, size_t m, size_t n,
              size_t k) {
  const float one = 1.0f, zero = 0.0f;
  check_cublas(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, as_int(n), as_int(m), as_int(k), &one, b,
                           as_int(k), a, as_int(k), &zero, c, as_int(n)),
               "cublasSgemm(forward)");
}

// Row-major C [m x n] = A^T * B, A row-major [k x m], B row-major [k x n].
void gemm_atb(cublasHandle_t h, const float* a, const float* b, float* c, size_t m, size_t n,
              size_t k) {
  const float one = 1.0f, zero = 0.0f;
  check_cublas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, as_int(n), as_int(m), as_int(k), &one, b,
                           as_int(n), a, as_int(m), &zero, c, as_int(n)),
               "cublasSgemm(weight gradient)");
}

// Row-major C [m x n] = A [m x k] * B, B row-major [k x n].
void gemm_ab(cublasHandle_t h, const float* a, const float* b, float* c, size_t m, size_t n,
             size_t k) {
  const float one = 1.0f, zero = 0.0f;
  check_cublas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(n), as_int(m), as_int(k), &one, b,
                           as_int(n), a, as_int(k), &zero, c, as_int(n)),
               "cublasSgemm(input gradient)");
}

}  // namespace

DeviceMlp::DeviceMlp(GpuContext& gpu, std::vector<size_t> widths)
    : gpu_(gpu), widths_(std::move(widths)) {
  const ParamLayout layout = mlp_layout(widths_);
  for (size_t l = 1; l < widths_.size(); ++l) offsets_.push_back(layout.tensor(2 * (l - 1)).offset);
  num_params_ = layout.total();
  acts_.resize(widths_.size());
  deltas_.resize(widths_.size());
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  handle_ = h;
  check_cublas(cublasSetStream(h, stream_of(gpu_)), "cublasSetStream");
  check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

DeviceMlp::~DeviceMlp() { cublasDestroy(static_cast<cublasHandle_t>(handle_)); }

void DeviceMlp::reserve(size_t batch) {
  if (batch <= capacity_) return;
  for (size_t l = 0; l < widths_.size(); ++l) {
    acts_[l] = DeviceBuffer(batch * widths_[l] * sizeof(float));
    deltas_[l] = DeviceBuffer(batch * widths_[l] * sizeof(float));
  }
  index_ = DeviceBuffer(batch * sizeof(uint64_t));
  labels_ = DeviceBuffer(batch * sizeof(int));
  loss_ = DeviceBuffer(batch * sizeof(double));
  correct_ = DeviceBuffer(batch * sizeof(uint32_t));
  sums_ = DeviceBuffer(2 * sizeof(double));
  capacity_ = batch;
}

void DeviceMlp::forward(const float* params, const DeviceImageSet& set,
                        std::span<const size_t> rows, bool delta) {
  const size_t n = rows.size(), layers = widths_.size() - 1;
  if (set.width() != widths_[0] || set.max_label() >= widths_[layers]) {
    throw InvalidArgument(fmt::format(
        "DeviceMlp: a set of width {} with labels up to {}, expected width {} and labels < {}",
        set.width(), set.max_label(), widths_[0], widths_[layers]));
  }
  reserve(n);
  host_index_.assign(rows.begin(), rows.end());
  for (const uint64_t k : host_index_) {
    if (k >= set.count()) throw InvalidArgument(fmt::format("example index {} out of range", k));
  }
  gpu_.copy(index_.data(), host_index_.data(), n * sizeof(uint64_t));
  gather_examples(gpu_, set.pixels(), set.labels(), set.width(), index_.as<uint64_t>(), n,
                  set.scale(), set.shift(), acts_[0].as<float>(), labels_.as<int>());
  auto* h = static_cast<cublasHandle_t>(handle_);
  for (size_t l = 1; l <= layers; ++l) {
    const float* w = params + offsets_[l - 1];
    auto* z = acts_[l].as<float>();
    gemm_abt(h, acts_[l - 1].as<float>(), w, z, n, widths_[l], widths_[l - 1]);
    add_bias(gpu_, z, w + widths_[l] * widths_[l - 1], n, widths_[l], l < layers);
  }
  softmax_head(gpu_, acts_[layers].as<float>(), labels_.as<int>(), n, widths_[layers],
               1.0f / static_cast<float>(n), delta ? deltas_[layers].as<float>() : nullptr,
               loss_.as<double>(), correct_.as<uint32_t>());
}

void DeviceMlp::backward(const float* params, size_t batch, float* grad) {
  auto* h = static_cast<cublasHandle_t>(handle_);
  for (size_t l = widths_.size() - 1; l >= 1; --l) {
    const size_t rows = widths_[l], cols = widths_[l - 1];
    const float* delta = deltas_[l].as<float>();
    float* gw = grad + offsets_[l - 1];
    gemm_atb(h, delta, acts_[l - 1].as<float>(), gw, rows, cols, batch);
    column_sums(gpu_, delta, batch, rows, gw + rows * cols);
    if (l == 1) break;
    auto* prev = deltas_[l - 1].as<float>();
    gemm_ab(h, delta, params + offsets_[l - 1], prev, batch, cols, rows);
    relu_mask(gpu_, prev, acts_[l - 1].as<float>(), batch * cols);
  }
}

std::vector<double> DeviceMlp::head_sums(size_t batch) {
  sum_head(gpu_, loss_.as<double>(), correct_.as<uint32_t>(), batch, sums_.as<double>());
  std::vector<double> out(2);
  gpu_.copy(out.data(), sums_.data(), 2 * sizeof(double));
  gpu_.synchronize();
  return out;
}

double DeviceMlp::loss_and_grad(const float* params, const DeviceImageSet& set,
                                std::span<const size_t> batch, float* grad) {
  if (batch.empty()) throw InvalidArgument("DeviceMlp: empty batch, expected >= 1 example");
  forward(params, set, batch, true);
  backward(params, batch.size(), grad);
  return head_sums(batch.size())[0] / static_cast<double>(batch.size());
}

EvalSums DeviceMlp::evaluate(const float* params, const DeviceImageSet& set, size_t begin,
                             size_t end, size_t chunk) {
  if (chunk == 0 || begin > end || end > set.count()) {
    throw InvalidArgument(fmt::format(
        "DeviceMlp::evaluate: examples [{}, {}) in chunks of {}, expected begin <= end <= {} "
        "and chunk >= 1",
        begin, end, chunk, set.count()));
  }
  EvalSums sums;
  std::vector<size_t> rows;
  for (size_t start = begin; start < end; start += chunk) {
    const size_t n = std::min(chunk, end - start);
    rows.resize(n);
    for (size_t i = 0; i < n; ++i) rows[i] = start + i;
    forward(params, set, rows, false);
    const auto s = head_sums(n);
    sums.loss_sum += s[0];
    sums.correct += s[1];
    sums.count += static_cast<double>(n);
  }
  return sums;
}

}  // namespace compopt::cuda
