#pragma once
// Error feedback (docs/algorithms.md): with state e (initially 0),
//   y = x + e;  msg = encode(y);  e = y - decode(msg).
// A small value type, kept apart from compressors and communicators so that
// optimizers own it and checkpoints save it.

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace compopt {

class ErrorFeedback {
 public:
  ErrorFeedback() = default;
  explicit ErrorFeedback(size_t n) : error_(n, 0.0f) {}

  size_t size() const { return error_.size(); }
  std::span<const float> error() const { return error_; }
  std::span<float> mutable_error() { return error_; }

  // y = x + e. Requires x.size() == y.size() == size().
  void compensate(std::span<const float> x, std::span<float> y) const;
  // e = y - decoded. Requires equal sizes.
  void update(std::span<const float> y, std::span<const float> decoded);
  void reset() { std::fill(error_.begin(), error_.end(), 0.0f); }

  // n floats of working memory owned by this state, for callers that need a full-length temporary
  // (feedback_encode.h with a compressor that is not chunkable): allocated on first use, reused
  // by later calls, never part of the state (size, reset and checkpoints ignore it).
  std::span<float> scratch(size_t n) {
    if (scratch_.size() < n) scratch_.resize(n);
    return std::span<float>(scratch_).first(n);
  }

 private:
  std::vector<float> error_;
  std::vector<float> scratch_;
};

}  // namespace compopt
