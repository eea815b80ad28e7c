// Architecture-derived totals against hand-computed values.

#include "net_models/model_shapes.h"

#include <gtest/gtest.h>

#include "core/util/error.h"

namespace compopt::net {
namespace {

TEST(ModelShapes, TransformerTotalsByHand) {
  // 2 blocks of width 4, sequence 3, vocabulary 10, LM head:
  // block weights 12*16 + 13*4 = 244; embeddings 10*4 + 3*4 = 52; final norm 8.
  const ShapeTotals t = transformer_totals({2, 4, 3, 10, true});
  EXPECT_EQ(t.parameters, 2u * 244 + 52 + 8);
  EXPECT_EQ(t.tensors, 2 * 16 + 4);
  EXPECT_EQ(t.layers, 2);
  // 2*2*12*16*3 matmuls + 4*2*9*4 attention + 2*3*4*10 head = 2304 + 288 + 240.
  EXPECT_DOUBLE_EQ(t.forward_flops_per_sample, 2304 + 288 + 240);
  EXPECT_DOUBLE_EQ(transformer_totals({2, 4, 3, 10, false}).forward_flops_per_sample, 2304 + 288);
}

TEST(ModelShapes, CnnTotalsByHand) {
  // conv 3->8, 3x3, 4x4 output: 216 weights + 8 biases, 2*216*16 FLOPs; linear 8->2.
  const ShapeTotals t =
      cnn_totals({{CnnLayer::Kind::kConv, 3, 8, 3, 4}, {CnnLayer::Kind::kLinear, 8, 2, 1, 1}});
  EXPECT_EQ(t.parameters, 216u + 8 + 16 + 2);
  EXPECT_EQ(t.tensors, 4);
  EXPECT_EQ(t.layers, 2);
  EXPECT_DOUBLE_EQ(t.forward_flops_per_sample, 2.0 * 216 * 16 + 2.0 * 16);
}

TEST(ModelShapes, TransformerActivationsFollowKorthikanti) {
  // 2 blocks, hidden 128, sequence 16, 2 heads: per block 16*128*(34 + 5*2*16/128) =
  // 2048 * 35.25 bytes at 16 bits. 128 / 64 gives the same 2 heads by default.
  constexpr double kPerBlock = 2048 * 35.25;
  EXPECT_DOUBLE_EQ(transformer_totals({2, 128, 16, 10, false, 2}).activation_bytes_per_sample,
                   2 * kPerBlock);
  EXPECT_DOUBLE_EQ(transformer_totals({2, 128, 16, 10, false}).activation_bytes_per_sample,
                   2 * kPerBlock);
  // 8 heads: 16*128*(34 + 5*8*16/128) = 2048 * 39.
  EXPECT_DOUBLE_EQ(transformer_totals({2, 128, 16, 10, false, 8}).activation_bytes_per_sample,
                   2 * 2048 * 39.0);
  // A width under 64 still has one head: 16*4*(34 + 5*1*16/4) = 64 * 54.
  EXPECT_DOUBLE_EQ(transformer_totals({1, 4, 16, 10, false}).activation_bytes_per_sample,
                   64 * 54.0);
  EXPECT_THROW(transformer_totals({2, 128, 16, 10, false, -1}), InvalidArgument);
}

TEST(ModelShapes, CnnActivationsAreOutputMapsAtTheirPrecision) {
  // conv: 4x4 map of 8 channels = 128 values; linear: 2 values; 2 bytes each.
  const ShapeTotals t =
      cnn_totals({{CnnLayer::Kind::kConv, 3, 8, 3, 4}, {CnnLayer::Kind::kLinear, 8, 2, 1, 1}});
  EXPECT_DOUBLE_EQ(t.activation_bytes_per_sample, 2.0 * (128 + 2));
  EXPECT_DOUBLE_EQ(activation_bytes_at(t, Precision::kFp32), 4.0 * 130);
  EXPECT_DOUBLE_EQ(activation_bytes_at(t, Precision::kBf16), 2.0 * 130);
  EXPECT_DOUBLE_EQ(activation_bytes_at(t, Precision::kFp8), 1.0 * 130);
}

TEST(ModelShapes, RefusesEmptyOrNonPositiveDimensions) {
  EXPECT_THROW(transformer_totals({0, 4, 3, 10, false}), InvalidArgument);
  EXPECT_THROW(transformer_totals({2, 4, -3, 10, false}), InvalidArgument);
  EXPECT_THROW(cnn_totals({}), InvalidArgument);
  EXPECT_THROW(cnn_totals({{CnnLayer::Kind::kConv, 3, 0, 3, 4}}), InvalidArgument);
  EXPECT_THROW(parse_cnn_layer_kind("pool"), InvalidArgument);
}

}  // namespace
}  // namespace compopt::net
