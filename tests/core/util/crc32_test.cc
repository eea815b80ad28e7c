// crc32_of: the published check value of CRC-32/ISO-HDLC, continuation, and zlib's values.

#include "core/util/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

namespace compopt {
namespace {

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

TEST(Crc32, CheckValue) {
  EXPECT_EQ(crc32_of(bytes_of("123456789")), 0xCBF43926u);  // the catalogue's check value
  EXPECT_EQ(crc32_of({}), 0u);
  EXPECT_EQ(crc32_of({}, 0xDEADBEEFu), 0xDEADBEEFu);
}

TEST(Crc32, ContinuesAcrossPieces) {
  const std::string text = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(crc32_of(bytes_of(text)), 0x414FA339u);
  const auto all = bytes_of(text);
  EXPECT_EQ(crc32_of(all.subspan(10), crc32_of(all.first(10))), 0x414FA339u);
}

TEST(Crc32, EqualsZlibOnUnalignedBuffers) {
  std::vector<std::byte> data(70001);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>((i * 131 + 7) % 251);
  for (size_t offset : {0, 1, 3, 17}) {
    const auto piece = std::span<const std::byte>(data).subspan(offset);
    const uLong want =
        ::crc32(0L, reinterpret_cast<const Bytef*>(piece.data()), static_cast<uInt>(piece.size()));
    EXPECT_EQ(crc32_of(piece), static_cast<uint32_t>(want)) << offset;
  }
}

}  // namespace
}  // namespace compopt
