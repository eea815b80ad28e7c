// Frame header encoding and the checks that keep random bytes out.

#include "real_backend/tcp/frame.h"

#include <gmock/gmock.h>

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

}  // namespace
}  // namespace compopt::tcp
