// ByteWriter/ByteReader: little-endian layout checked byte by byte, round trips, and
// the errors of truncated or lying inputs.

#include "core/util/byte_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "core/util/error.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

std::vector<uint8_t> as_u8(const std::vector<std::byte>& b) {
  std::vector<uint8_t> out;
  for (std::byte x : b) out.push_back(static_cast<uint8_t>(x));
  return out;
}

TEST(ByteWriter, IntegersAreLittleEndian) {
  ByteWriter w;
  w.put<uint32_t>(0x11223344u);
  w.put<uint16_t>(0xA1B2);
  w.put<int8_t>(-2);
  EXPECT_EQ(as_u8(w.bytes()), (std::vector<uint8_t>{0x44, 0x33, 0x22, 0x11, 0xB2, 0xA1, 0xFE}));
}

TEST(ByteWriter, FloatsAreTheirIeeeBitsLittleEndian) {
  ByteWriter w;
  w.put<float>(1.0f);   // 0x3F800000
  w.put<double>(-2.0);  // 0xC000000000000000
  EXPECT_EQ(as_u8(w.bytes()),
            (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3F, 0, 0, 0, 0, 0, 0, 0x00, 0xC0}));
}

TEST(ByteWriter, StringsAndArraysCarryAU64Length) {
  ByteWriter w;
  w.put_string("ab");
  const std::vector<uint16_t> values = {1, 0x0203};
  w.put_array<uint16_t>(values);
  EXPECT_EQ(as_u8(w.bytes()), (std::vector<uint8_t>{2, 0, 0, 0, 0, 0, 0, 0, 'a', 'b',  //
                                                    2, 0, 0, 0, 0, 0, 0, 0, 1,   0,   3, 2}));
}

TEST(ByteReader, ReadsBackWhatTheWriterWrote) {
  ByteWriter w;
  w.put<int64_t>(-123456789012345);
  w.put<double>(std::numeric_limits<double>::denorm_min());
  w.put_string("");
  w.put_string("key");
  const std::vector<float> floats = {1.5f, -0.0f, 3e38f};
  w.put_array<float>(floats);
  const std::vector<std::byte> blob = {std::byte{7}, std::byte{0}};
  w.put_blob(blob);
  ByteReader r(w.bytes(), "test");
  EXPECT_EQ(r.get<int64_t>(), -123456789012345);
  EXPECT_EQ(r.get<double>(), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(r.get_string(), "");
  EXPECT_EQ(r.get_string(), "key");
  EXPECT_EQ(r.get_array<float>(), floats);
  EXPECT_EQ(r.get_blob(), blob);
  EXPECT_TRUE(r.done());
}

TEST(ByteReader, TruncationNamesTheContextAndTheByte) {
  const std::vector<std::byte> three(3);
  ByteReader r(three, "frame header", 100);
  r.get<uint16_t>();
  EXPECT_THAT([&] { r.get<uint32_t>(); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("frame header at byte 102: truncated: 4 bytes needed, 1 left")));
}

TEST(ByteReader, RefusesALengthLargerThanWhatIsLeft) {
  ByteWriter w;
  w.put<uint64_t>(3);  // claims three floats, has one
  w.put<float>(1.0f);
  ByteReader r(w.bytes(), "blob");
  EXPECT_THAT([&] { r.get_array<float>(); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("blob at byte 8: a length of 3 exceeds the 4 bytes left")));
  ByteWriter huge;
  huge.put<uint64_t>(std::numeric_limits<uint64_t>::max());
  ByteReader h(huge.bytes(), "blob");
  EXPECT_THROW(h.get_string(), InvalidArgument);
}

TEST(ByteReader, FailNamesThePosition) {
  const std::vector<std::byte> two(2);
  ByteReader r(two, "checkpoint x: corrupt body", 24);
  r.take(1);
  EXPECT_THAT([&] { r.fail("bad flag"); }, ::testing::ThrowsMessage<InvalidArgument>(HasSubstr(
                                               "checkpoint x: corrupt body at byte 25: bad flag")));
}

}  // namespace
}  // namespace compopt
