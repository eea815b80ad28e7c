#pragma once
// Parameter counts and FLOPs derived from a model's architecture, for workloads described by
// their shape instead of their totals (docs/whatif.md, "Describe any model"):
//   transformer: `layers` blocks of width `hidden` (attention 4 h^2 + MLP 8 h^2 weights,
//                13 h biases and norm scales), token + position embeddings, an optional
//                language-model head over `vocabulary` at every position;
//   CNN:         a list of convolutions and fully connected layers.
// Forward FLOPs per sample count a multiply-add as 2 FLOPs.

#include <cstdint>
#include <string_view>
#include <vector>

namespace compopt::net {

struct TransformerShape {
  int layers = 0, hidden = 0, sequence = 0, vocabulary = 0;
  bool lm_head = false;  // logits over the vocabulary at every position (GPT-style)
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
};

// Throw InvalidArgument naming the first non-positive dimension.
ShapeTotals transformer_totals(const TransformerShape& shape);
ShapeTotals cnn_totals(const std::vector<CnnLayer>& layers);
// "conv" | "linear"; throws InvalidArgument otherwise.
CnnLayer::Kind parse_cnn_layer_kind(std::string_view name);

}  // namespace compopt::net
