#include "core/optim/dct_blocks.h"

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
}

size_t DctBlocks::element_offset(size_t b, size_t h, size_t w) const {
  const size_t blocks_per_row = cols_ / block_cols_;
  const size_t y = b / blocks_per_row, x = b % blocks_per_row;
  return (y * block_rows_ + h) * cols_ + x * block_cols_ + w;
}

void DctBlocks::encode(size_t b, std::span<const float> x, std::span<double> coeffs) const {
  const size_t nr = block_rows_, nc = block_cols_;
  std::vector<double> tmp(nr * nc, 0.0);  // tmp = B C_c^T
  for (size_t h = 0; h < nr; ++h) {
    const float* row = x.data() + element_offset(b, h, 0);
    for (size_t v = 0; v < nc; ++v) {
      double s = 0;
      for (size_t w = 0; w < nc; ++w) s += dct_cols_[v * nc + w] * static_cast<double>(row[w]);
      tmp[h * nc + v] = s;
    }
  }
  for (size_t u = 0; u < nr; ++u) {  // X = C_r tmp
    for (size_t v = 0; v < nc; ++v) {
      double s = 0;
      for (size_t h = 0; h < nr; ++h) s += dct_rows_[u * nr + h] * tmp[h * nc + v];
      coeffs[u * nc + v] = s;
    }
  }
}

void DctBlocks::decode(std::span<const double> coeffs, std::span<double> values) const {
  const size_t nr = block_rows_, nc = block_cols_;
  std::vector<double> tmp(nr * nc, 0.0);  // tmp = C_r^T X
  for (size_t h = 0; h < nr; ++h) {
    for (size_t v = 0; v < nc; ++v) {
      double s = 0;
      for (size_t u = 0; u < nr; ++u) s += dct_rows_[u * nr + h] * coeffs[u * nc + v];
      tmp[h * nc + v] = s;
    }
  }
  for (size_t h = 0; h < nr; ++h) {  // B = tmp C_c
    for (size_t w = 0; w < nc; ++w) {
      double s = 0;
      for (size_t v = 0; v < nc; ++v) s += tmp[h * nc + v] * dct_cols_[v * nc + w];
      values[h * nc + w] = s;
    }
  }
}

}  // namespace compopt
