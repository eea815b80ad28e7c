// `sign` compressor: hand-derived scales and bit patterns, zero/empty inputs, wire size, the
// chunk-cut property used by the compressed allreduce, and the non-finite policy.
#include "core/compress/sign.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "core/util/error.h"

namespace compopt {
namespace {

const RandomKey kKey{};

TEST(SignCompressor, Properties) {
  const SignCompressor c;
  EXPECT_EQ(c.name(), "sign");
  EXPECT_TRUE(c.has_scale());
  EXPECT_FALSE(c.is_stochastic());
  for (size_t k : {0u, 1u, 7u, 8u, 9u, 16u, 1000001u}) {
    EXPECT_EQ(c.payload_bytes(k), (k + 7) / 8) << k;
    EXPECT_EQ(c.wire_bytes(k), (k + 7) / 8 + 4) << k;
  }
  EXPECT_EQ(c.wire_bytes(0), 4u);
  EXPECT_EQ(c.wire_bytes(9), 6u);
}

TEST(SignCompressor, HandExample) {
  // s = sqrt((9 + 16 + 0 + 0) / 4) = 5/2; bits 1,0,1,1 (0 and -0.0 are >= 0) -> 0b1101.
  const SignCompressor c;
  const std::vector<float> x = {3.0f, -4.0f, 0.0f, -0.0f};
  std::vector<std::byte> payload(1, std::byte{0xFF});
  const float s = c.encode(x, payload, kKey);
  EXPECT_EQ(s, 2.5f);
  EXPECT_EQ(payload[0], std::byte{0x0D});
  std::vector<float> out(4);
  c.decode(s, payload, out);
  EXPECT_EQ(out, (std::vector<float>{2.5f, -2.5f, 2.5f, 2.5f}));
}

TEST(SignCompressor, NineElementsSpanTwoBytes) {
  // Squares sum to 8*1 + 4 = 12, s = sqrt(12/9); bits 1,0,1,0,1,0,1,0 | 0.
  const SignCompressor c;
  const std::vector<float> x = {1, -1, 1, -1, 1, -1, 1, -1, -2};
  std::vector<std::byte> payload(2);
  const float s = c.encode(x, payload, kKey);
  EXPECT_EQ(s, static_cast<float>(std::sqrt(12.0 / 9.0)));
  EXPECT_EQ(payload[0], std::byte{0x55});
  EXPECT_EQ(payload[1], std::byte{0x00});
  std::vector<float> out(9);
  c.decode(s, payload, out);
  for (size_t j = 0; j < 9; ++j) EXPECT_EQ(out[j], x[j] >= 0 ? s : -s) << j;
}

TEST(SignCompressor, OneAndSevenElements) {
  const SignCompressor c;
  {
    const std::vector<float> x = {-0.25f};
    std::vector<std::byte> payload(1, std::byte{0xFF});
    EXPECT_EQ(c.encode(x, payload, kKey), 0.25f);
    EXPECT_EQ(payload[0], std::byte{0x00});
  }
  {
    // 7 elements, squares sum to 7*4 = 28: s = 2; bits 1,1,0,1,0,0,1 -> 0b1001011, high bit 0.
    const std::vector<float> x = {2, 2, -2, 2, -2, -2, 2};
    std::vector<std::byte> payload(1, std::byte{0xFF});
    EXPECT_EQ(c.encode(x, payload, kKey), 2.0f);
    EXPECT_EQ(payload[0], std::byte{0x4B});
    std::vector<float> out(7);
    c.decode(2.0f, payload, out);
    EXPECT_EQ(out, x);
  }
}

TEST(SignCompressor, ZeroVectorDecodesToZerosWithoutNan) {
  const SignCompressor c;
  const std::vector<float> x(13, 0.0f);
  std::vector<std::byte> payload(2);
  const float s = c.encode(x, payload, kKey);
  EXPECT_EQ(s, 0.0f);
  std::vector<float> out(13, 5.0f);
  c.decode(s, payload, out);
  for (float v : out) EXPECT_EQ(v, 0.0f);
}

TEST(SignCompressor, EmptyVector) {
  const SignCompressor c;
  std::vector<std::byte> payload;
  const float s = c.encode(std::span<const float>(), payload, kKey);
  EXPECT_EQ(s, 0.0f);
  EXPECT_FALSE(std::isnan(s));
  c.decode(s, payload, std::span<float>());
}

TEST(SignCompressor, ScaleDoesNotOverflowForHugeValues) {
  // Squares overflow float but not double: s = sqrt((a^2 + a^2)/2) = a.
  const SignCompressor c;
  const float a = 3e38f;
  const std::vector<float> x = {a, -a};
  std::vector<std::byte> payload(1);
  EXPECT_EQ(c.encode(x, payload, kKey), a);
}

TEST(SignCompressor, ChunkCutEqualsWholeDecode) {
  // Encode 8n elements with one scale, decode each chunk's byte range alone.
  const SignCompressor c;
  constexpr size_t kChunks = 5, kChunk = 24;  // chunk length a multiple of 8
  std::vector<float> x(kChunks * kChunk);
  for (size_t j = 0; j < x.size(); ++j) x[j] = std::sin(0.7f * static_cast<float>(j)) - 0.1f;
  std::vector<std::byte> payload(c.payload_bytes(x.size()));
  const float s = c.encode(x, payload, kKey);
  std::vector<float> whole(x.size());
  c.decode(s, payload, whole);
  const size_t chunk_bytes = c.payload_bytes(kChunk);
  ASSERT_EQ(chunk_bytes * kChunks, payload.size());
  for (size_t i = 0; i < kChunks; ++i) {
    std::vector<float> part(kChunk);
    c.decode(s, std::span<const std::byte>(payload).subspan(i * chunk_bytes, chunk_bytes), part);
    for (size_t j = 0; j < kChunk; ++j) ASSERT_EQ(part[j], whole[i * kChunk + j]) << i << " " << j;
  }
  // And the whole decode is the spec formula.
  for (size_t j = 0; j < x.size(); ++j) ASSERT_EQ(whole[j], x[j] >= 0 ? s : -s);
}

TEST(SignCompressor, ScaleMatchesLongDoubleReference) {
  const SignCompressor c;
  std::vector<float> x(1001);
  long double sum = 0;
  for (size_t j = 0; j < x.size(); ++j) {
    x[j] = std::cos(0.37f * static_cast<float>(j)) * static_cast<float>(j % 17 + 1);
    sum += static_cast<long double>(x[j]) * x[j];
  }
  std::vector<std::byte> payload(c.payload_bytes(x.size()));
  const float s = c.encode(x, payload, kKey);
  EXPECT_EQ(s, static_cast<float>(std::sqrt(sum / x.size())));
  for (size_t j = 0; j < x.size(); ++j) {  // bits across several internal blocks and a tail
    const bool bit = ((static_cast<unsigned>(payload[j / 8]) >> (j % 8)) & 1u) != 0;
    ASSERT_EQ(bit, x[j] >= 0.0f) << j;
  }
  std::vector<float> out(x.size());
  c.decode(s, payload, out);
  for (size_t j = 0; j < x.size(); ++j) ASSERT_EQ(out[j], x[j] >= 0.0f ? s : -s) << j;
}

TEST(SignCompressor, NonFiniteInputsGiveNonFiniteScale) {
  const SignCompressor c;
  std::vector<std::byte> payload(1);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(c.encode(std::vector<float>{1.0f, -inf, 2.0f}, payload, kKey), inf);
  EXPECT_TRUE(std::isnan(c.encode(std::vector<float>{1.0f, nan, inf}, payload, kKey)));
  EXPECT_EQ(payload[0], std::byte{0x05});  // the NaN element's bit is 0
  std::vector<float> out(3);
  c.decode(nan, payload, out);
  for (float v : out) EXPECT_TRUE(std::isnan(v));
}

TEST(SignCompressor, RejectsWrongPayloadSize) {
  const SignCompressor c;
  std::vector<float> x(9);
  std::vector<std::byte> small(1), big(3);
  EXPECT_THROW(c.encode(x, small, kKey), InvalidArgument);
  EXPECT_THROW(c.encode(x, big, kKey), InvalidArgument);
  EXPECT_THROW(c.decode(1.0f, small, x), InvalidArgument);
}

TEST(SignCompressor, RoundTrip) {
  const SignCompressor c;
  const std::vector<float> x = {3.0f, -4.0f, 0.0f, -0.0f};
  std::vector<float> out(4);
  EXPECT_EQ(c.round_trip(x, out, kKey), 2.5f);
  EXPECT_EQ(out, (std::vector<float>{2.5f, -2.5f, 2.5f, 2.5f}));
  std::vector<float> wrong(3);
  EXPECT_THROW(c.round_trip(x, wrong, kKey), InvalidArgument);
}

}  // namespace
}  // namespace compopt
