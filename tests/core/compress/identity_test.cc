// `identity` compressor: byte-exact fp32 copy, 4k wire bytes, no scale.
#include "core/compress/identity.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/util/error.h"

namespace compopt {
namespace {

TEST(IdentityCompressor, CopiesBitsExactly) {
  const IdentityCompressor c;
  EXPECT_EQ(c.name(), "identity");
  EXPECT_FALSE(c.has_scale());
  EXPECT_FALSE(c.is_stochastic());
  EXPECT_EQ(c.wire_bytes(0), 0u);
  EXPECT_EQ(c.wire_bytes(9), 36u);
  const std::vector<float> x = {1.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::infinity(), 1e-45f};
  std::vector<std::byte> payload(c.payload_bytes(x.size()));
  EXPECT_EQ(c.encode(x, payload, RandomKey{}), 1.0f);
  // 1.0f = 0x3F800000, little-endian.
  EXPECT_EQ(payload[0], std::byte{0x00});
  EXPECT_EQ(payload[3], std::byte{0x3F});
  EXPECT_EQ(payload[2], std::byte{0x80});
  std::vector<float> out(x.size());
  c.decode(1.0f, payload, out);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(x[i])) << i;
  }
  std::vector<std::byte> wrong(3);
  EXPECT_THROW(c.encode(x, wrong, RandomKey{}), InvalidArgument);
}

}  // namespace
}  // namespace compopt
