#pragma once
// Per-element Birder state ([BIR] Alg. 1; docs/algorithms.md) shared by the flat and the
// hierarchical variants: m = beta*m + (1-beta)*g; b^ = beta*b^ + (1-beta)*|g|;
// b = max(b_prev, b^) when amsgrad_max and t > T0, else b^; q = m/(b+eps).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/optim/optimizer_state.h"

namespace compopt {

struct BirderOptions {
  float beta = 0.95f;
  bool amsgrad_max = false;
  int64_t amsgrad_start = 0;  // T0: the max applies for t > T0
  std::string compressor = "binary";
};

class BirderState {
 public:
  BirderState() = default;
  explicit BirderState(size_t n) : m_(n, 0.0f), b_hat_(n, 0.0f), b_(n, 0.0f) {}
  size_t size() const { return m_.size(); }

  // Updates the state with g (step t) and writes q = m/(b+eps) into q (which may be g).
  void update(const BirderOptions& options, int64_t t, float eps, std::span<const float> g,
              std::span<float> q);

  std::span<const float> b() const { return b_; }
  void save(OptimizerState& state, const std::string& prefix) const;
  // Sizes from the checkpoint; `expected` = 0 accepts any size.
  void load(const OptimizerState& state, const std::string& prefix, size_t expected);

 private:
  std::vector<float> m_, b_hat_, b_;
};

}  // namespace compopt
