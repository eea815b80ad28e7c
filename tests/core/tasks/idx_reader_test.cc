#include "core/tasks/idx_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/core/tasks/idx_test_util.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;
using testing::idx_bytes;

class IdxReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::temp_dir("idx"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string error_of(const std::filesystem::path& path, size_t ndims) {
    try {
      read_idx_u8(path, ndims);
    } catch (const DatasetError& e) {
      return e.what();
    }
    return "no error";
  }

  std::filesystem::path dir_;
};

TEST_F(IdxReaderTest, ReadsGzipAndPlainFiles) {
  const std::vector<uint8_t> data = {1, 2, 3, 4, 5, 6};
  testing::write_gz(dir_ / "a.gz", idx_bytes(0x08, {3, 2}, data));
  testing::write_plain(dir_ / "a.idx", idx_bytes(0x08, {3, 2}, data));
  for (const char* name : {"a.gz", "a.idx"}) {
    const IdxArray a = read_idx_u8(dir_ / name, 2);
    EXPECT_EQ(a.dims, (std::vector<uint32_t>{3, 2})) << name;
    EXPECT_EQ(a.data, data) << name;
  }
}

TEST_F(IdxReaderTest, BigEndianDimensions) {
  std::vector<uint8_t> data(300, 7);
  testing::write_gz(dir_ / "b.gz", idx_bytes(0x08, {300}, data));
  EXPECT_EQ(read_idx_u8(dir_ / "b.gz", 1).dims[0], 300u);
}

TEST_F(IdxReaderTest, MissingFile) {
  const std::string e = error_of(dir_ / "nope.gz", 1);
  EXPECT_THAT(e, HasSubstr("nope.gz"));
  EXPECT_THAT(e, HasSubstr("not found"));
}

TEST_F(IdxReaderTest, WrongMagic) {
  auto bytes = idx_bytes(0x08, {2}, {1, 2});
  bytes[0] = 0x1f;
  testing::write_gz(dir_ / "m.gz", bytes);
  EXPECT_THAT(error_of(dir_ / "m.gz", 1), HasSubstr("bad magic number"));
}

TEST_F(IdxReaderTest, WrongElementType) {
  testing::write_gz(dir_ / "t.gz", idx_bytes(0x0D, {2}, {1, 2}));
  EXPECT_THAT(error_of(dir_ / "t.gz", 1), HasSubstr("element type 0x0d, expected 0x08"));
}

TEST_F(IdxReaderTest, WrongNumberOfDimensions) {
  testing::write_gz(dir_ / "d.gz", idx_bytes(0x08, {1, 2}, {1, 2}));
  const std::string e = error_of(dir_ / "d.gz", 3);
  EXPECT_THAT(e, HasSubstr("2 dimensions"));
  EXPECT_THAT(e, HasSubstr("expected 3"));
}

TEST_F(IdxReaderTest, ZeroDimension) {
  testing::write_gz(dir_ / "z.gz", idx_bytes(0x08, {0}, {}));
  EXPECT_THAT(error_of(dir_ / "z.gz", 1), HasSubstr("dimension 1 is 0"));
}

TEST_F(IdxReaderTest, TruncatedData) {
  testing::write_gz(dir_ / "tr.gz", idx_bytes(0x08, {4, 3}, {1, 2, 3, 4, 5}));
  const std::string e = error_of(dir_ / "tr.gz", 2);
  EXPECT_THAT(e, HasSubstr("truncated"));
  EXPECT_THAT(e, HasSubstr("12 data bytes"));
  EXPECT_THAT(e, HasSubstr("has 5"));
}

TEST_F(IdxReaderTest, TruncatedHeader) {
  testing::write_gz(dir_ / "h.gz", {0, 0, 8, 3, 0, 0});
  EXPECT_THAT(error_of(dir_ / "h.gz", 3), HasSubstr("truncated header"));
}

TEST_F(IdxReaderTest, TrailingBytes) {
  testing::write_gz(dir_ / "x.gz", idx_bytes(0x08, {2}, {1, 2, 3}));
  EXPECT_THAT(error_of(dir_ / "x.gz", 1), HasSubstr("trailing bytes"));
}

TEST_F(IdxReaderTest, CorruptGzipStream) {
  // A gzip header followed by garbage deflate data.
  std::vector<uint8_t> bytes = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  for (int i = 0; i < 64; ++i) bytes.push_back(static_cast<uint8_t>(0xff - i));
  testing::write_plain(dir_ / "c.gz", bytes);
  const std::string e = error_of(dir_ / "c.gz", 1);
  EXPECT_THAT(e, HasSubstr("c.gz"));
  EXPECT_THAT(e, HasSubstr("gzip"));
}

TEST_F(IdxReaderTest, EmptyFile) {
  testing::write_plain(dir_ / "e.idx", {});
  EXPECT_THAT(error_of(dir_ / "e.idx", 1), HasSubstr("truncated"));
}

}  // namespace
}  // namespace compopt
