#pragma once
// Parameter counts and FLOPs derived from a model's architecture, for workloads described by
// their shape instead of their totals (docs/whatif.md, "Describe any model"):
//   transformer: `layers` blocks of width `hidden` (attention 4 h^2 + MLP 8 h^2 weights,
//                13 h biases and norm scales), token + position embeddings, an optional
//                language-model head over `vocabulary` at every position;
//   CNN:         a list of convolutions and fully connected layers.
// Forward FLOPs per sample count a multiply-add as 2 FLOPs.
// Activations kept for the backward pass, per sample, at 2 bytes per value (16-bit):
//   transformer: per block s*h*(34 + 5*a*s/h) bytes (Korthikanti et al. 2022, "Reducing
//                Activation Recomputation in Large Transformer Models", arXiv 2205.05198,
//                no recomputation; s sequence, h hidden, a attention heads), times the blocks.
//                Of that, 5*a*s^2 are the attention scores, softmax and dropout mask
//                (attention_score_bytes, not kept by FlashAttention) and 2*s*h the block's input
//                (layer_input_bytes, all that full activation checkpointing keeps);
//   CNN:         each layer's output map (output^2 x out channels; a linear layer: out) x 2 B
//                (its layer inputs are the previous outputs: checkpointing saves nothing here).

#include <cstdint>
#include <string_view>
#include <vector>

#include "net_models/precision.h"

namespace compopt::net {

struct TransformerShape {
  int layers = 0, hidden = 0, sequence = 0, vocabulary = 0;
  bool lm_head = false;  // logits over the vocabulary at every position (GPT-style)
  int heads = 0;         // attention heads; 0: hidden / 64 (at least 1)
};

struct CnnLayer {
  enum class Kind { kConv, kLinear };
  Kind kind = Kind::kConv;
  int in = 0, out = 0;
  int kernel = 1;       // conv: square kernel side
  int output_side = 1;  // conv: side of the square output map
};

struct ShapeTotals {
  uint64_t parameters = 0;
  int tensors = 0;  // weight and bias tensors (each is a gradient bucket entry)
  int layers = 0;   // layers that launch their own kernels
  double forward_flops_per_sample = 0;
  double activation_bytes_per_sample = 0;       // at 2 bytes per value, see above
  double attention_score_bytes_per_sample = 0;  // the a*s^2 part of it
  double layer_input_bytes_per_sample = 0;      // every layer's input (what checkpointing keeps)
};

// Throw InvalidArgument naming the first non-positive dimension.
ShapeTotals transformer_totals(const TransformerShape& shape);
ShapeTotals cnn_totals(const std::vector<CnnLayer>& layers);
// The shape's activation bytes per sample stored in `precision` (scaled from 2 bytes per value).
double activation_bytes_at(const ShapeTotals& totals, Precision precision);
// "conv" | "linear"; throws InvalidArgument otherwise.
CnnLayer::Kind parse_cnn_layer_kind(std::string_view name);

}  // namespace compopt::net
