// LSB-first packing helpers against a bit-by-bit reference written from the layout rule.
#include "core/compress/bit_packing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace compopt {
namespace {

// Reference: stream bit t is bit t%8 of byte t/8.
bool stream_bit(const std::vector<std::byte>& bytes, size_t t) {
  return ((static_cast<unsigned>(bytes[t / 8]) >> (t % 8)) & 1u) != 0;
}

TEST(PackedBytes, RoundsUp) {
  EXPECT_EQ(packed_bytes(0, 1), 0u);
  EXPECT_EQ(packed_bytes(1, 1), 1u);
  EXPECT_EQ(packed_bytes(8, 1), 1u);
  EXPECT_EQ(packed_bytes(9, 1), 2u);
  EXPECT_EQ(packed_bytes(3, 3), 2u);
  EXPECT_EQ(packed_bytes(5, 16), 10u);
}

TEST(Pack8, ExhaustiveAgainstBitByBitReference) {
  for (unsigned v = 0; v < 256; ++v) {
    uint64_t flags = 0;
    for (unsigned r = 0; r < 8; ++r) flags |= static_cast<uint64_t>((v >> r) & 1u) << (8 * r);
    ASSERT_EQ(pack8(flags), v);
    ASSERT_EQ(unpack8(static_cast<uint8_t>(v)), flags);
  }
}

TEST(PackFlags, HandExample) {
  // Elements 0..9 = 1,0,1,1,0,0,0,1 | 0,1 -> byte0 = 0b10001101, byte1 = 0b00000010.
  const uint8_t flags[] = {1, 0, 1, 1, 0, 0, 0, 1, 0, 1};
  std::vector<std::byte> out(2, std::byte{0xFF});
  pack_flags(flags, 10, out.data());
  EXPECT_EQ(out[0], std::byte{0x8D});
  EXPECT_EQ(out[1], std::byte{0x02});  // unused high bits are 0
}

TEST(PackFlags, MatchesReferenceAndUnpacks) {
  for (size_t k : {0u, 1u, 7u, 8u, 9u, 63u, 64u, 65u}) {
    std::vector<uint8_t> flags(k);
    for (size_t j = 0; j < k; ++j) flags[j] = ((j * 2654435761u) >> 7) & 1u;
    std::vector<std::byte> out(packed_bytes(k, 1));
    pack_flags(flags.data(), k, out.data());
    for (size_t j = 0; j < k; ++j) ASSERT_EQ(stream_bit(out, j), flags[j] != 0) << k << " " << j;
    for (size_t t = k; t < 8 * out.size(); ++t) ASSERT_FALSE(stream_bit(out, t));
    std::vector<uint8_t> back(k, 7u);
    unpack_flags(out.data(), k, back.data());
    EXPECT_EQ(back, flags);
  }
}

TEST(BitWriterReader, FieldsAreContiguousLsbFirst) {
  for (unsigned width : {1u, 2u, 3u, 5u, 8u, 11u, 16u}) {
    const size_t k = 37;
    std::vector<uint32_t> fields(k);
    for (size_t j = 0; j < k; ++j) {
      fields[j] = static_cast<uint32_t>(j * 40503u + 7u) & ((1u << width) - 1u);
    }
    std::vector<std::byte> out(packed_bytes(k, width), std::byte{0xAA});
    BitWriter writer(out.data());
    for (uint32_t f : fields) writer.put(f, width);
    writer.finish();
    for (size_t j = 0; j < k; ++j) {
      for (unsigned b = 0; b < width; ++b) {
        ASSERT_EQ(stream_bit(out, j * width + b), ((fields[j] >> b) & 1u) != 0)
            << "width " << width << " element " << j << " bit " << b;
      }
    }
    for (size_t t = k * width; t < 8 * out.size(); ++t) ASSERT_FALSE(stream_bit(out, t));
    BitReader reader(out.data());
    for (size_t j = 0; j < k; ++j) ASSERT_EQ(reader.get(width), fields[j]) << width << " " << j;
  }
}

}  // namespace
}  // namespace compopt
