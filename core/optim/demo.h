#pragma once
// DeMo, decoupled momentum optimization (Peng, Quesnelle & Kingma 2024, Alg. 1, with the
// chunking of the authors' reference code; docs/algorithms.md "DeMo"). Per step t, rank i:
//   m_i = decay * m_i + g_i                        local momentum, never averaged
//   per block of each tensor (dct_blocks.h): X = DCT(block of m_i); keep the k = min(topk,
//     block elements) coefficients of largest |X| (ties: the lower coefficient index; NaN
//     counts as the largest), sent as fp32 values with uint16 indices
//   m_i -= IDCT(kept coefficients)                 error feedback: what was sent leaves m_i
//   allgather every rank's (value, index) pairs
//   Q = IDCT(per coefficient, the mean of the values of the ranks that sent it; 0 if none)
//   x -= lr * (sign(Q) + lambda * x)               sign(0) = 0
// A rank's message: every block's kept values (fp32) in block order, each block's in ascending
// coefficient order, then their indices (uint16) in the same order.
// Every rank decodes the same gathered bytes in rank order, so parameters stay bit-identical.
// A tensor is a rows x cols matrix in 2-D blocks when DemoOptions::tensor_rows or the layout
// (TensorSpec::rows) gives it rows, else 1-D.

#include <cstdint>
#include <vector>

#include "core/optim/dct_blocks.h"
#include "core/optim/optimizer.h"

namespace compopt {

struct DemoOptions {
  float decay = 0.999f;  // compression_decay, in [0, 1)
  int64_t topk = 32;     // compression_topk, >= 1
  int64_t chunk = 64;    // compression_chunk, in [1, kMaxChunk]
  // Rows of each tensor of the layout viewed as a rows x cols matrix (they must divide its
  // size); empty: the layout's rows (TensorSpec::rows; 0: 1-D).
  std::vector<size_t> tensor_rows;

  // Block coefficients are indexed with uint16, so a block holds at most kMaxChunk^2 of them.
  static constexpr int64_t kMaxChunk = 256;
};

class Demo final : public Optimizer {
 public:
  // Throws InvalidArgument for options outside their ranges or rows that do not fit the layout.
  Demo(ParamLayout layout, CommonOptions common, DemoOptions options);
  Stage stage() const override { return Stage::kCompression; }
  // Coefficients each rank sends per step (the sum over blocks of min(topk, block elements)).
  size_t sent_per_rank() const { return sent_; }

 private:
  struct Block {
    const DctBlocks* blocks;
    size_t tensor_offset, index, kept, first_sent;
  };

  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  // Selects block's coefficients into the message and removes their IDCT from m_.
  void compress_block(const Block& block);
  // dir_ of block := sign of the IDCT of the ranks' mean sparse coefficients in `all`.
  void decode_block(const Block& block, std::span<const std::byte> all, int ranks);

  DemoOptions options_;
  std::vector<DctBlocks> transforms_;  // one per tensor
  std::vector<Block> blocks_;
  size_t sent_ = 0;
  std::vector<float> m_, dir_;
  std::vector<float> values_;    // this rank's sent values, block by block
  std::vector<uint16_t> index_;  // and their coefficient indices within the block
  std::vector<std::byte> message_, gathered_;
};

}  // namespace compopt
