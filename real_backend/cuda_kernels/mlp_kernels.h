#pragma once
// Internal to DeviceMlp (device_mlp.h): the non-GEMM kernels of the MLP's forward and backward,
// each the device twin of one step of MlpKernel (core/tasks/mlp.h) on row-major batches.
// Every pointer is device memory; every call only queues work on gpu.stream().

#include <cstddef>
#include <cstdint>

#include "real_backend/cuda_kernels/gpu_context.h"

namespace compopt::cuda {

// x[i][p] = float(pixels[index[i]][p]) * scale + shift (fp32, in that order, as the CPU's
// gather), labels_out[i] = labels[index[i]], for i < n; `width` pixels per example.
void gather_examples(GpuContext& gpu, const uint8_t* pixels, const uint8_t* labels, size_t width,
                     const uint64_t* index, size_t n, float scale, float shift, float* x,
                     int* labels_out);

// z[i][j] += bias[j], then max(z, 0) when relu, for a rows x cols row-major z.
void add_bias(GpuContext& gpu, float* z, const float* bias, size_t rows, size_t cols, bool relu);

// Per row of the rows x classes logits z: z := log_softmax(z) (max-shifted), loss[i] =
// -double(z[i][label_i]), correct[i] = (first argmax == label_i); when delta is not null,
// delta[i][j] = exp(z[i][j]) * inv_batch - (j == label_i ? inv_batch : 0).
void softmax_head(GpuContext& gpu, float* z, const int* labels, size_t rows, size_t classes,
                  float inv_batch, float* delta, double* loss, uint32_t* correct);

// sums[0] = loss[0] + ... + loss[rows-1] (double, index order), sums[1] = the number of
// correct rows (as a double).
void sum_head(GpuContext& gpu, const double* loss, const uint32_t* correct, size_t rows,
              double* sums);

// out[j] = sum over i (index order, fp32) of delta[i][j] for a rows x cols row-major delta.
void column_sums(GpuContext& gpu, const float* delta, size_t rows, size_t cols, float* out);

// delta[i] = act[i] > 0 ? delta[i] : 0 for i < n (ReLU's derivative).
void relu_mask(GpuContext& gpu, float* delta, const float* act, size_t n);

}  // namespace compopt::cuda
