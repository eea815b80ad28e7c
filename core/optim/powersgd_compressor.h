#pragma once
// PowerSgdCompressor: the gradient compression of PowerSGD (Vogels, Karimireddy & Jaggi,
// NeurIPS 2019, Algorithms 1 and 2), as PyTorch's DDP hook powerSGD_hook applies it, over one
// flat gradient vector whose ParamLayout says which tensors are matrices (TensorSpec::rows).
//
// Per step, with M = g + e on each rank (e = 0 without error feedback):
//   - a matrix tensor (n x m, rank r = min(n, m, rank)) is factored when
//     (n + m) * r * min_compression_rate < n * m:
//       Q := orthogonalise(Q)   (Q kept from the previous step with warm start, else drawn)
//       P := allreduce_sum(M Q);  P := orthogonalise(P)
//       Q := allreduce_mean(M^T P);  out := P Q^T
//   - every other tensor (vectors, matrices that would not pay) is ring-averaged: out := mean(M).
//   - error feedback: e := M - out over the whole vector (the hook keeps e per bucket, which
//     holds uncompressed tensors' local deviation from the mean too).
// orthogonalise is the hook's Gram-Schmidt: column j /= (||column j|| + epsilon), then removed
// from the later columns. With epsilon = 0 a zero column stays zero (the hook's intent; its
// division gives NaN there). All ranks end with a bit-identical out and Q.

#include <cstdint>
#include <span>
#include <vector>

#include "core/comm/communicator.h"
#include "core/optim/optimizer_state.h"
#include "core/util/param_layout.h"

namespace compopt {

// The hook's PowerSGDState knobs (torch names in the registry keys); start_powerSGD_iter is
// the optimizer's (powersgd.h).
struct PowerSgdOptions {
  int64_t rank = 1;  // matrix_approximation_rank
  double min_compression_rate = 2.0;
  bool use_error_feedback = true;
  bool warm_start = true;
  float orthogonalization_epsilon = 0.0f;
};

// A factored tensor: rows x cols at `offset` of the flat vector, rank `rank`, its Q
// (cols x rank, row-major) at q_offset of the Q buffer and its P (rows x rank) at p_offset.
struct PowerSgdMatrix {
  size_t offset = 0;
  size_t rows = 0;
  size_t cols = 0;
  size_t rank = 0;
  size_t q_offset = 0;
  size_t p_offset = 0;
};

// out := standard normal draws keyed by (seed, step): the initial Q (step 0) and, without warm
// start, the fresh Q of each step. Box-Muller over the Philox stream of RandomKey.
void powersgd_random_factors(uint64_t seed, int64_t step, std::span<float> out);

class PowerSgdCompressor {
 public:
  // Draws the initial Q from `seed`. Throws InvalidArgument for rank < 1.
  PowerSgdCompressor(const ParamLayout& layout, PowerSgdOptions options, uint64_t seed);

  // out := the decompressed mean over comm of every rank's grads (+ error), see the top;
  // `step` keys a fresh Q without warm start. grads and out: layout.total() floats.
  void allreduce_mean(Communicator& comm, std::span<const float> grads, std::span<float> out,
                      int64_t step, WirePrecision wire);

  const std::vector<PowerSgdMatrix>& matrices() const { return matrices_; }
  // Floats of P and Q per step (what one rank sends per allreduce round, before the ring).
  size_t factor_floats() const { return p_.size() + q_.size(); }

  // Keys "powersgd.q" and, with error feedback, "powersgd.error".
  void save(OptimizerState& state) const;
  void load(const OptimizerState& state);

 private:
  void allreduce_vectors(Communicator& comm, std::span<float> out, WirePrecision wire);
  void allreduce_factors(Communicator& comm, std::span<float> out, WirePrecision wire);

  PowerSgdOptions options_;
  uint64_t seed_;
  std::vector<PowerSgdMatrix> matrices_;
  std::vector<TensorSpec> vectors_;  // tensors sent uncompressed
  std::vector<float> q_, p_, error_, local_, vector_buffer_;
};

}  // namespace compopt
