// Frame header encoding and the checks that keep random bytes out.

#include "real_backend/tcp/frame.h"

#include <gmock/gmock.h>
#include <zlib.h>

#include <vector>

#include "core/util/error.h"

namespace compopt::tcp {
namespace {

using ::testing::HasSubstr;

std::string error_of(const HeaderBytes& bytes) {
  try {
    decode_header(bytes, 1 << 20);
  } catch (const CommError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FrameTest, HeaderRoundTrips) {
  const FrameHeader h{
      .kind = FrameKind::kData, .channel = 0x123456789abcULL, .length = 777, .payload_crc = 42};
  const FrameHeader back = decode_header(encode_header(h), 1 << 20);
  EXPECT_EQ(back.kind, h.kind);
  EXPECT_EQ(back.channel, h.channel);
  EXPECT_EQ(back.length, h.length);
  EXPECT_EQ(back.payload_crc, h.payload_crc);
}

TEST(FrameTest, RejectsWrongMagicChecksumKindAndLength) {
  HeaderBytes b = encode_header({.kind = FrameKind::kData, .length = 8});
  b[0] = std::byte{'G'};
  EXPECT_THAT(error_of(b), HasSubstr("bad frame magic"));
  b = encode_header({.kind = FrameKind::kData, .length = 8});
  b[17] ^= std::byte{1};  // a flipped length bit
  EXPECT_THAT(error_of(b), HasSubstr("header checksum mismatch"));
  EXPECT_THAT(error_of(encode_header({.kind = static_cast<FrameKind>(99)})),
              HasSubstr("unknown frame kind 99"));
  EXPECT_THAT(error_of(encode_header({.kind = FrameKind::kData, .length = (1 << 20) + 1})),
              HasSubstr("data frame of 1048577 bytes, limit 1048576"));
  EXPECT_THAT(error_of(encode_header({.kind = FrameKind::kAbort, .length = 5000})),
              HasSubstr("abort frame of 5000 bytes, limit 4096"));
}

TEST(FrameTest, Crc32MatchesTheStandardCheckValue) {
  const std::string text = "123456789";
  EXPECT_EQ(crc32_of(std::as_bytes(std::span(text.data(), text.size()))), 0xCBF43926u);
}

// The frame checksum (ISA-L when built with it) against zlib's crc32 as the reference: every
// length 0..300 at every alignment 0..15, a 1 MiB + 3 buffer, and continued in pieces the way
// the reader checks a payload.
TEST(FrameTest, Crc32EqualsZlibAtEveryLengthAlignmentAndContinuation) {
  std::vector<std::byte> buffer((size_t{1} << 20) + 64);
  for (size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
  auto zlib = [&](size_t offset, size_t length, uLong seed = 0) {
    return static_cast<uint32_t>(::crc32(
        seed, reinterpret_cast<const Bytef*>(buffer.data() + offset), static_cast<uInt>(length)));
  };
  const std::span<const std::byte> all(buffer);
  for (size_t align = 0; align < 16; ++align) {
    for (size_t length = 0; length <= 300; ++length) {
      ASSERT_EQ(crc32_of(all.subspan(align, length)), zlib(align, length))
          << align << "+" << length;
    }
  }
  const size_t big = (size_t{1} << 20) + 3;
  EXPECT_EQ(crc32_of(all.subspan(5, big)), zlib(5, big));
  uint32_t continued = 0;
  for (size_t offset = 0; offset < big; offset += 65537) {
    continued = crc32_of(all.subspan(5 + offset, std::min<size_t>(65537, big - offset)), continued);
  }
  EXPECT_EQ(continued, zlib(5, big));
  EXPECT_EQ(crc32_of({}, 0x12345678u), 0x12345678u) << "an empty piece leaves the running value";
}

}  // namespace
}  // namespace compopt::tcp
