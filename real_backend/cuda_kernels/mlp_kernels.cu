// The MLP's elementwise and per-row kernels; see mlp_kernels.h.
#include "real_backend/cuda_kernels/kernel_common.cuh"
#include "real_backend/cuda_kernels/mlp_kernels.h"

namespace compopt::cuda {
namespace detail {
namespace {

__global__ void gather_kernel(const uint8_t* pixels, const uint8_t* labels, size_t width,
                              const uint64_t* index, size_t n, float scale, float shift, float* x,
                              int* labels_out) {
  const size_t total = n * width;
  for (size_t e = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t i = e / width, p = e % width;
    const uint64_t k = index[i];
    x[e] = __fadd_rn(__fmul_rn(static_cast<float>(pixels[k * width + p]), scale), shift);
    if (p == 0) labels_out[i] = labels[k];
  }
}

__global__ void bias_kernel(float* z, const float* bias, size_t rows, size_t cols, bool relu) {
  const size_t total = rows * cols;
  for (size_t e = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float v = __fadd_rn(z[e], bias[e % cols]);
    z[e] = relu ? fmaxf(v, 0.0f) : v;
  }
}

// One thread per row: the classes are few (10 for Fashion-MNIST).
__global__ void softmax_kernel(float* z, const int* labels, size_t rows, size_t classes,
                               float inv_batch, float* delta, double* loss, uint32_t* correct) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float* row = z + i * classes;
  float max = row[0];
  for (size_t j = 1; j < classes; ++j) max = fmaxf(max, row[j]);
  float sum = 0.0f;
  for (size_t j = 0; j < classes; ++j) sum = __fadd_rn(sum, expf(__fsub_rn(row[j], max)));
  const float log_sum = __fadd_rn(max, logf(sum));
  const auto label = static_cast<size_t>(labels[i]);
  for (size_t j = 0; j < classes; ++j) {
    row[j] = __fsub_rn(row[j], log_sum);
    if (delta != nullptr) {
      const float p = __fmul_rn(expf(row[j]), inv_batch);
      delta[i * classes + j] = j == label ? __fsub_rn(p, inv_batch) : p;
    }
  }
  size_t best = 0;  // the first maximum of the log-probabilities, as Eigen's maxCoeff
  for (size_t j = 1; j < classes; ++j) {
    if (row[j] > row[best]) best = j;
  }
  loss[i] = -static_cast<double>(row[label]);
  correct[i] = best == label ? 1u : 0u;
}

__global__ void sum_head_kernel(const double* loss, const uint32_t* correct, size_t rows,
                                double* sums) {
  double total = 0.0, right = 0.0;
  for (size_t i = 0; i < rows; ++i) {
    total = __dadd_rn(total, loss[i]);
    right += correct[i];
  }
  sums[0] = total;
  sums[1] = right;
}

__global__ void column_sums_kernel(const float* delta, size_t rows, size_t cols, float* out) {
  const size_t j = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.0f;
  for (size_t i = 0; i < rows; ++i) s = __fadd_rn(s, delta[i * cols + j]);
  out[j] = s;
}

__global__ void relu_mask_kernel(float* delta, const float* act, size_t n) {
  for (size_t e = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (!(act[e] > 0.0f)) delta[e] = 0.0f;
  }
}

inline unsigned capped_blocks(size_t threads) {
  const unsigned blocks = blocks_for(threads);
  return blocks < (1u << 16) ? blocks : (1u << 16);
}

}  // namespace
}  // namespace detail

void gather_examples(GpuContext& gpu, const uint8_t* pixels, const uint8_t* labels, size_t width,
                     const uint64_t* index, size_t n, float scale, float shift, float* x,
                     int* labels_out) {
  if (n == 0 || width == 0) return;
  detail::gather_kernel<<<detail::capped_blocks(n * width), detail::kThreads, 0, stream_of(gpu)>>>(
      pixels, labels, width, index, n, scale, shift, x, labels_out);
  detail::check_launch("gather_kernel");
}

void add_bias(GpuContext& gpu, float* z, const float* bias, size_t rows, size_t cols, bool relu) {
  if (rows * cols == 0) return;
  detail::bias_kernel<<<detail::capped_blocks(rows * cols), detail::kThreads, 0, stream_of(gpu)>>>(
      z, bias, rows, cols, relu);
  detail::check_launch("bias_kernel");
}

void softmax_head(GpuContext& gpu, float* z, const int* labels, size_t rows, size_t classes,
                  float inv_batch, float* delta, double* loss, uint32_t* correct) {
  if (rows == 0) return;
  detail::softmax_kernel<<<detail::blocks_for(rows), detail::kThreads, 0, stream_of(gpu)>>>(
      z, labels, rows, classes, inv_batch, delta, loss, correct);
  detail::check_launch("softmax_kernel");
}

void sum_head(GpuContext& gpu, const double* loss, const uint32_t* correct, size_t rows,
              double* sums) {
  detail::sum_head_kernel<<<1, 1, 0, stream_of(gpu)>>>(loss, correct, rows, sums);
  detail::check_launch("sum_head_kernel");
}

void column_sums(GpuContext& gpu, const float* delta, size_t rows, size_t cols, float* out) {
  if (cols == 0) return;
  detail::column_sums_kernel<<<detail::blocks_for(cols), detail::kThreads, 0, stream_of(gpu)>>>(
      delta, rows, cols, out);
  detail::check_launch("column_sums_kernel");
}

void relu_mask(GpuContext& gpu, float* delta, const float* act, size_t n) {
  if (n == 0) return;
  detail::relu_mask_kernel<<<detail::capped_blocks(n), detail::kThreads, 0, stream_of(gpu)>>>(
      delta, act, n);
  detail::check_launch("relu_mask_kernel");
}

}  // namespace compopt::cuda
