#pragma once
// DctBlocks: a tensor of rows x cols floats (row-major; a 1-D tensor is 1 x n) cut into
// blocks of block_rows x block_cols, each transformed with the orthonormal 2-D DCT-II, as
// DeMo (demo.h) chunks its momentum. block_rows and block_cols are the largest divisors of
// rows and cols that do not exceed `chunk` (so a 1-D tensor has 1 x c blocks).
//
// DCT-II matrix of size n: C[k][j] = s_k * cos(pi * (2j + 1) * k / (2n)), s_0 = sqrt(1/n),
// s_k = sqrt(2/n) for k > 0; it is orthonormal, so the inverse is C^T. A block B has the
// coefficients X = C_r B C_c^T, stored row-major (coefficient (u, v) at u * block_cols + v).
// Blocks are numbered row-major over the grid of blocks. Everything is computed in double in
// a fixed order, so every rank gets the same bits from the same input.
// Immutable after construction; safe to share between threads.

#include <cstddef>
#include <span>
#include <vector>

namespace compopt {

// The largest divisor of n (>= 1) that is <= cap (>= 1).
size_t largest_divisor_at_most(size_t n, size_t cap);

class DctBlocks {
 public:
  // Throws InvalidArgument unless rows, cols and chunk are >= 1.
  DctBlocks(size_t rows, size_t cols, size_t chunk);

  size_t block_rows() const { return block_rows_; }
  size_t block_cols() const { return block_cols_; }
  size_t block_elements() const { return block_rows_ * block_cols_; }
  size_t num_blocks() const { return (rows_ / block_rows_) * (cols_ / block_cols_); }

  // coeffs (block_elements()) := the DCT coefficients of block b of x (rows * cols).
  void encode(size_t b, std::span<const float> x, std::span<double> coeffs) const;
  // values (block_elements(), row-major within the block) := the inverse DCT of coeffs.
  void decode(std::span<const double> coeffs, std::span<double> values) const;
  // The offset in the tensor of element (h, w) of block b, for scattering decode's values.
  size_t element_offset(size_t b, size_t h, size_t w) const {
    const size_t blocks_per_row = cols_ / block_cols_;
    return ((b / blocks_per_row) * block_rows_ + h) * cols_ + (b % blocks_per_row) * block_cols_ +
           w;
  }

 private:
  size_t rows_, cols_, block_rows_, block_cols_;
  std::vector<double> dct_rows_, dct_cols_;  // C_r, C_c row-major
  std::vector<double> dct_cols_t_;           // C_c^T row-major
};

}  // namespace compopt
