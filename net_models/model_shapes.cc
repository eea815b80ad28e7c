#include "net_models/model_shapes.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/util/error.h"

namespace compopt::net {
namespace {

constexpr int kTensorsPerBlock = 16;  // q, k, v, out, fc1, fc2 (weight + bias), 2 norms x 2
constexpr int kMaxDimension = 1 << 24;
constexpr int kHeadWidth = 64;          // hidden / heads when the heads are not given
constexpr double kActivationBytes = 2;  // the 16-bit accounting of ShapeTotals

void require_dimension(int value, const char* field, const char* what) {
  if (value < 1 || value > kMaxDimension) {
    throw InvalidArgument(
        fmt::format("{}.{} = {}, expected 1..{}", what, field, value, kMaxDimension));
  }
}

}  // namespace

ShapeTotals transformer_totals(const TransformerShape& s) {
  const char* what = "workload.transformer";
  require_dimension(s.layers, "layers", what);
  require_dimension(s.hidden, "hidden", what);
  require_dimension(s.sequence, "sequence", what);
  require_dimension(s.vocabulary, "vocabulary", what);
  if (s.heads != 0) require_dimension(s.heads, "heads", what);
  const double h = s.hidden, seq = s.sequence, vocab = s.vocabulary, layers = s.layers;
  const double block_weights = 12.0 * h * h + 13.0 * h;
  const double embeddings = vocab * h + seq * h;
  ShapeTotals out;
  out.parameters = static_cast<uint64_t>(layers * block_weights + embeddings + 2.0 * h);
  out.tensors = kTensorsPerBlock * s.layers + 4;  // token and position embeddings, final norm
  out.layers = s.layers;
  // Weight matmuls, attention scores and context (2 x 2 x seq^2 x h per block), LM head.
  out.forward_flops_per_sample = 2.0 * layers * 12.0 * h * h * seq + 4.0 * layers * seq * seq * h +
                                 (s.lm_head ? 2.0 * seq * h * vocab : 0.0);
  const double heads = s.heads > 0 ? s.heads : std::max(1, s.hidden / kHeadWidth);
  out.activation_bytes_per_sample = layers * seq * h * (34.0 + 5.0 * heads * seq / h);
  out.attention_score_bytes_per_sample = layers * 5.0 * heads * seq * seq;
  out.layer_input_bytes_per_sample = layers * kActivationBytes * seq * h;
  return out;
}

ShapeTotals cnn_totals(const std::vector<CnnLayer>& layers) {
  if (layers.empty()) throw InvalidArgument("workload.cnn_layers: empty list, expected >= 1 layer");
  ShapeTotals out;
  for (const CnnLayer& l : layers) {
    const char* what = "workload.cnn_layers[]";
    require_dimension(l.in, "in", what);
    require_dimension(l.out, "out", what);
    const bool conv = l.kind == CnnLayer::Kind::kConv;
    if (conv) {
      require_dimension(l.kernel, "kernel", what);
      require_dimension(l.output_side, "output", what);
    }
    const double weights = conv ? 1.0 * l.in * l.out * l.kernel * l.kernel : 1.0 * l.in * l.out;
    const double positions = conv ? 1.0 * l.output_side * l.output_side : 1.0;
    out.parameters += static_cast<uint64_t>(weights + l.out);
    out.tensors += 2;
    out.layers += 1;
    out.forward_flops_per_sample += 2.0 * weights * positions;
    out.activation_bytes_per_sample += kActivationBytes * positions * l.out;
  }
  return out;
}

double activation_bytes_at(const ShapeTotals& totals, Precision precision) {
  return totals.activation_bytes_per_sample * precision_bytes(precision) / kActivationBytes;
}

CnnLayer::Kind parse_cnn_layer_kind(std::string_view name) {
  if (name == "conv") return CnnLayer::Kind::kConv;
  if (name == "linear") return CnnLayer::Kind::kLinear;
  throw InvalidArgument(
      fmt::format("workload.cnn_layers[].kind = '{}', expected conv or linear", name));
}

}  // namespace compopt::net
