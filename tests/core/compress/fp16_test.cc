// `fp16` compressor: payload = little-endian halves equal to GCC's _Float16 rounding, 2k bytes.
#include "core/compress/fp16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "core/util/error.h"

namespace compopt {
namespace {

TEST(Fp16Compressor, EncodesToNearestEvenHalf) {
  const Fp16Compressor c;
  EXPECT_EQ(c.name(), "fp16");
  EXPECT_FALSE(c.has_scale());
  EXPECT_EQ(c.wire_bytes(0), 0u);
  EXPECT_EQ(c.wire_bytes(9), 18u);
  const std::vector<float> x = {1.0f, -2.0f, 65504.0f, 70000.0f, 0x1p-25f, 0.1f, 1.0f + 0x1p-11f};
  // Hand-derived halves: 3C00, C000, 7BFF, 7C00 (overflow), 0000 (tie to even), 2E66, 3C00.
  const uint16_t expected[] = {0x3C00, 0xC000, 0x7BFF, 0x7C00, 0x0000, 0x2E66, 0x3C00};
  std::vector<std::byte> payload(c.payload_bytes(x.size()));
  EXPECT_EQ(c.encode(x, payload, RandomKey{}), 1.0f);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(payload[2 * i], static_cast<std::byte>(expected[i] & 0xFF)) << i;
    EXPECT_EQ(payload[2 * i + 1], static_cast<std::byte>(expected[i] >> 8)) << i;
  }
  std::vector<float> out(x.size());
  c.decode(1.0f, payload, out);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(out[i], static_cast<float>(std::bit_cast<_Float16>(expected[i]))) << i;
  }
}

TEST(Fp16Compressor, MatchesGccOnManyValues) {
  const Fp16Compressor c;
  std::vector<float> x(4099);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::ldexp(std::sin(static_cast<float>(i)), i % 40 - 28);
  std::vector<float> out(x.size());
  c.round_trip(x, out, RandomKey{});
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(out[i]),
              std::bit_cast<uint32_t>(static_cast<float>(static_cast<_Float16>(x[i]))))
        << i;
  }
}

TEST(Fp16Compressor, NanStaysNan) {
  const Fp16Compressor c;
  const std::vector<float> x = {std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> out(1);
  c.round_trip(x, out, RandomKey{});
  EXPECT_TRUE(std::isnan(out[0]));
}

TEST(Fp16Compressor, RejectsWrongPayloadSize) {
  const Fp16Compressor c;
  std::vector<float> x(3);
  std::vector<std::byte> payload(5);
  EXPECT_THROW(c.encode(x, payload, RandomKey{}), InvalidArgument);
}

}  // namespace
}  // namespace compopt
