#include "core/optim/dct_blocks.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "core/util/error.h"

namespace compopt {
namespace {

std::vector<double> dct_matrix(size_t n) {
  std::vector<double> c(n * n);
  const double nd = static_cast<double>(n);
  for (size_t k = 0; k < n; ++k) {
    const double s = std::sqrt((k == 0 ? 1.0 : 2.0) / nd);
    for (size_t j = 0; j < n; ++j) {
      const double angle = std::numbers::pi * static_cast<double>((2 * j + 1) * k) / (2.0 * nd);
      c[k * n + j] = s * std::cos(angle);
    }
  }
  return c;
}

}  // namespace

size_t largest_divisor_at_most(size_t n, size_t cap) {
  for (size_t c = std::min(n, cap); c > 1; --c) {
    if (n % c == 0) return c;
  }
  return 1;
}

DctBlocks::DctBlocks(size_t rows, size_t cols, size_t chunk) : rows_(rows), cols_(cols) {
  if (rows == 0 || cols == 0 || chunk == 0) {
    throw InvalidArgument("DCT blocks of a " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " tensor with chunk " + std::to_string(chunk) +
                          ": expected every size >= 1");
  }
  block_rows_ = largest_divisor_at_most(rows, chunk);
  block_cols_ = largest_divisor_at_most(cols, chunk);
  dct_rows_ = dct_matrix(block_rows_);
  dct_cols_ = dct_matrix(block_cols_);
  dct_cols_t_.resize(dct_cols_.size());
  for (size_t v = 0; v < block_cols_; ++v) {
    for (size_t w = 0; w < block_cols_; ++w)
      dct_cols_t_[w * block_cols_ + v] = dct_cols_[v * block_cols_ + w];
  }
}

void DctBlocks::encode(size_t b, std::span<const float> x, std::span<double> coeffs) const {
  const size_t nr = block_rows_, nc = block_cols_;
  std::vector<double> tmp(nr * nc, 0.0);  // tmp = B C_c^T, summed over w in order
  for (size_t h = 0; h < nr; ++h) {
    const float* row = x.data() + element_offset(b, h, 0);
    double* out = tmp.data() + h * nc;
    for (size_t w = 0; w < nc; ++w) {
      const double value = row[w];
      const double* basis = dct_cols_t_.data() + w * nc;
      for (size_t v = 0; v < nc; ++v) out[v] += basis[v] * value;
    }
  }
  std::fill(coeffs.begin(), coeffs.begin() + static_cast<ptrdiff_t>(nr * nc), 0.0);
  for (size_t u = 0; u < nr; ++u) {  // X = C_r tmp, summed over h in order
    double* out = coeffs.data() + u * nc;
    for (size_t h = 0; h < nr; ++h) {
      const double c = dct_rows_[u * nr + h];
      for (size_t v = 0; v < nc; ++v) out[v] += c * tmp[h * nc + v];
    }
  }
}

void DctBlocks::decode(std::span<const double> coeffs, std::span<double> values) const {
  // Zero coefficients are skipped: DeMo decodes top-k sparse blocks. Same order on every call.
  const size_t nr = block_rows_, nc = block_cols_;
  std::vector<double> tmp(nr * nc, 0.0);  // tmp = C_r^T X
  for (size_t u = 0; u < nr; ++u) {
    for (size_t v = 0; v < nc; ++v) {
      const double x = coeffs[u * nc + v];
      if (x == 0.0) continue;
      for (size_t h = 0; h < nr; ++h) tmp[h * nc + v] += dct_rows_[u * nr + h] * x;
    }
  }
  std::fill(values.begin(), values.begin() + static_cast<ptrdiff_t>(nr * nc), 0.0);
  for (size_t h = 0; h < nr; ++h) {  // B = tmp C_c
    double* out = values.data() + h * nc;
    for (size_t v = 0; v < nc; ++v) {
      const double y = tmp[h * nc + v];
      if (y == 0.0) continue;
      const double* basis = dct_cols_.data() + v * nc;
      for (size_t w = 0; w < nc; ++w) out[w] += y * basis[w];
    }
  }
}

}  // namespace compopt
