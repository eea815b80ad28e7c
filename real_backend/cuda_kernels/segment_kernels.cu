// Per-segment (per-tensor) double sums in the fixed order of SegmentTable (optimizer_kernels.h):
// LAMB's trust coefficients and update, and the ||v||_1 of 1-bit Adam's freeze detector.
#include "real_backend/cuda_kernels/kernel_common.cuh"
#include "real_backend/cuda_kernels/optimizer_kernels.h"

namespace compopt::cuda {
namespace detail {
namespace {

// (x_i^2, u_i^2) in double (exact).
struct SquaresOf {
  const float* x;
  const float* u;
  __device__ double2 operator()(size_t i) const {
    const double a = x[i], b = u[i];
    return make_double2(__dmul_rn(a, a), __dmul_rn(b, b));
  }
};

// (|v_i|, 0).
struct AbsOf {
  const float* v;
  __device__ double2 operator()(size_t i) const { return make_double2(fabs(double(v[i])), 0.0); }
};

// One block of kSegmentThreads per chunk: partials[2c], partials[2c+1] = the chunk's two sums.
template <class Term>
__global__ void __launch_bounds__(kSegmentThreads)
    chunk_sums_kernel(Term term, SegmentTable table) {
  __shared__ double sa[kSegmentThreads], sb[kSegmentThreads];
  const int t = static_cast<int>(threadIdx.x);
  const size_t begin = table.chunk_begin[blockIdx.x], end = table.chunk_end[blockIdx.x];
  double a = 0.0, b = 0.0;
  for (size_t i = begin + static_cast<size_t>(t); i < end; i += kSegmentThreads) {
    const double2 v = term(i);
    a = __dadd_rn(a, v.x);
    b = __dadd_rn(b, v.y);
  }
  sa[t] = a;
  sb[t] = b;
  __syncthreads();
  for (int s = kSegmentThreads / 2; s > 0; s /= 2) {
    if (t < s) {
      sa[t] = __dadd_rn(sa[t], sa[t + s]);
      sb[t] = __dadd_rn(sb[t], sb[t + s]);
    }
    __syncthreads();
  }
  if (t == 0) {
    table.partials[2 * blockIdx.x] = sa[0];
    table.partials[2 * blockIdx.x + 1] = sb[0];
  }
}

// Sum `which` (0 or 1) of segment s: its chunk sums in chunk order from 0.0.
__device__ double segment_sum(const SegmentTable& table, size_t s, int which) {
  double total = 0.0;
  for (uint32_t c = table.first_chunk[s]; c < table.first_chunk[s + 1]; ++c) {
    total = __dadd_rn(total, table.partials[2 * c + which]);
  }
  return total;
}

// lamb_coefficient of core/optim/lamb.cc: 1 when a norm is 0, else std::clamp(pn/un, lo, hi).
__global__ void lamb_coefficient_kernel(SegmentTable table, float lr, double c_min, double c_max,
                                        double* coefficients, float* steps) {
  const size_t s = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= table.segments) return;
  const double pn = __dsqrt_rn(segment_sum(table, s, 0));
  const double un = __dsqrt_rn(segment_sum(table, s, 1));
  double c = 1.0;
  if (pn != 0.0 && un != 0.0) {
    const double q = __ddiv_rn(pn, un);
    c = q < c_min ? c_min : (c_max < q ? c_max : q);
  }
  coefficients[s] = c;
  steps[s] = __double2float_rn(__dmul_rn(static_cast<double>(lr), c));
}

// x -= steps[segment] * u over one chunk per block.
__global__ void lamb_step_kernel(SegmentTable table, float* x, const float* u, const float* steps) {
  const size_t begin = table.chunk_begin[blockIdx.x], end = table.chunk_end[blockIdx.x];
  const float step = steps[table.chunk_segment[blockIdx.x]];
  for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    x[i] = __fsub_rn(x[i], __fmul_rn(step, u[i]));
  }
}

__global__ void segment_first_sum_kernel(SegmentTable table, double* out) {
  const size_t s = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s < table.segments) out[s] = segment_sum(table, s, 0);
}

unsigned chunk_grid(const SegmentTable& table) { return static_cast<unsigned>(table.chunks); }
unsigned segment_grid(const SegmentTable& table) { return blocks_for(table.segments); }

}  // namespace
}  // namespace detail

void lamb_apply(GpuContext& gpu, const SegmentTable& table, float* x, const float* u, float lr,
                double c_min, double c_max, double* coefficients, float* steps) {
  if (table.chunks == 0) return;
  const cudaStream_t stream = stream_of(gpu);
  detail::chunk_sums_kernel<<<detail::chunk_grid(table), kSegmentThreads, 0, stream>>>(
      detail::SquaresOf{x, u}, table);
  detail::check_launch("chunk_sums_kernel(squares)");
  detail::lamb_coefficient_kernel<<<detail::segment_grid(table), detail::kThreads, 0, stream>>>(
      table, lr, c_min, c_max, coefficients, steps);
  detail::check_launch("lamb_coefficient_kernel");
  detail::lamb_step_kernel<<<detail::chunk_grid(table), kSegmentThreads, 0, stream>>>(table, x, u,
                                                                                      steps);
  detail::check_launch("lamb_step_kernel");
}

void segment_l1(GpuContext& gpu, const SegmentTable& table, const float* v, double* out) {
  if (table.chunks == 0) return;
  const cudaStream_t stream = stream_of(gpu);
  detail::chunk_sums_kernel<<<detail::chunk_grid(table), kSegmentThreads, 0, stream>>>(
      detail::AbsOf{v}, table);
  detail::check_launch("chunk_sums_kernel(abs)");
  detail::segment_first_sum_kernel<<<detail::segment_grid(table), detail::kThreads, 0, stream>>>(
      table, out);
  detail::check_launch("segment_first_sum_kernel");
}

}  // namespace compopt::cuda
