// Compression cost per phase and compressor (net_models/compression_cost.h), against the byte
// counts of the kernels done by hand.

#include "net_models/compression_cost.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::net {
namespace {

using ::testing::HasSubstr;

TEST(CompressionCost, SignPaysANormPassOverBinaryOnEveryPhaseButDecode) {
  // 8 ranks, flat. sign: worker 4+4+4+1/8 then 8 = 20.125; server (16.125 + 8/8) / 8;
  // decode 4.125. binary: worker 12.125; server (8.125 + 1) / 8; decode 4.125.
  const CompressionBytes sign = compression_bytes("sign", 8, 1.0);
  const CompressionBytes binary = compression_bytes("binary", 8, 1.0);
  EXPECT_DOUBLE_EQ(sign.encode, 20.125);
  EXPECT_DOUBLE_EQ(sign.server, 17.125 / 8);
  EXPECT_DOUBLE_EQ(sign.decode, 4.125);
  EXPECT_DOUBLE_EQ(binary.encode, 12.125);
  EXPECT_DOUBLE_EQ(binary.server, 9.125 / 8);
  EXPECT_DOUBLE_EQ(binary.decode, 4.125);
  EXPECT_DOUBLE_EQ(relative_compression_bytes("binary", 8, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(relative_compression_bytes("sign", 8, 1.0),
                   (20.125 + 17.125 / 8 + 4.125) / (12.125 + 9.125 / 8 + 4.125));
}

TEST(CompressionCost, ServerShareShrinksWithRanksAndTheShardWithGpusPerNode) {
  // 64 ranks flat: server (8.125 + 64/8) / 64 per element.
  EXPECT_DOUBLE_EQ(compression_bytes("binary", 64, 1.0).server, 16.125 / 64);
  // Hierarchical on 4 nodes x 8 GPUs: a GPU encodes 1/8 of the vector and serves 1/4 of that,
  // but decodes all of it.
  const CompressionBytes h = compression_bytes("binary", 4, 0.125);
  EXPECT_DOUBLE_EQ(h.encode, 12.125 / 8);
  EXPECT_DOUBLE_EQ(h.server, (8.125 + 0.5) / 4 / 8);
  EXPECT_DOUBLE_EQ(h.decode, 4.125);
  EXPECT_DOUBLE_EQ(h.total(), h.encode + h.server + h.decode);
}

TEST(CompressionCost, NbitPaysAMaxPassAndItsWiderFields) {
  // nbit:4 (1/2 byte a field), 4 ranks: worker 12 + 4 + (4 + 1/2) + (1/2 + 8) = 29;
  // server (25 + 4 * 1/2) / 4; decode 1/2 + 4. nbit:8 fields take 1 byte.
  const CompressionBytes four = compression_bytes("nbit:4", 4, 1.0);
  EXPECT_DOUBLE_EQ(four.encode, 29.0);
  EXPECT_DOUBLE_EQ(four.server, 27.0 / 4);
  EXPECT_DOUBLE_EQ(four.decode, 4.5);
  EXPECT_DOUBLE_EQ(compression_bytes("nbit:8", 1, 1.0).encode, 30.0);
  for (const char* bad : {"nbit", "nbit:", "nbit:1", "nbit:17", "nbit:4x", "nbit:-4"}) {
    EXPECT_THAT(testing_support::invalid_argument_message([&] { compression_bytes(bad, 8, 1); }),
                HasSubstr("expected sign, binary or nbit:B"))
        << bad;
  }
}

TEST(CompressionCost, RefusesOtherCompressorsAndBadSizes) {
  EXPECT_THAT(testing_support::invalid_argument_message([] { compression_bytes("topk", 8, 1); }),
              HasSubstr("'topk'"));
  EXPECT_THROW(compression_bytes("sign", 0, 1.0), InvalidArgument);
  EXPECT_THROW(compression_bytes("sign", 8, 0.0), InvalidArgument);
  EXPECT_THROW(compression_bytes("sign", 8, 1.5), InvalidArgument);
}

}  // namespace
}  // namespace compopt::net
