#include "core/train/checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/util/error.h"
#include "tests/support/same_step_record.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

using testing_support::double_bits;

// Bitwise equality of two records, field by field, the clock fields included.
void expect_same(const StepRecord& a, const StepRecord& b) {
  testing_support::expect_same_math(a, b);
  EXPECT_EQ(double_bits(a.time_s), double_bits(b.time_s));
  EXPECT_EQ(double_bits(a.step_wall_s), double_bits(b.step_wall_s));
  EXPECT_EQ(double_bits(a.compute_s), double_bits(b.compute_s));
  EXPECT_EQ(double_bits(a.comm_s), double_bits(b.comm_s));
  EXPECT_EQ(double_bits(a.compression_s), double_bits(b.compression_s));
}

void expect_same(const Checkpoint& a, const Checkpoint& b) {
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.identity, b.identity);
  EXPECT_EQ(a.settings, b.settings);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) EXPECT_EQ(a.ranks[r], b.ranks[r]) << "rank " << r;
  ASSERT_EQ(a.records.size(), b.records.size());
  for (size_t i = 0; i < a.records.size(); ++i) expect_same(a.records[i], b.records[i]);
}

// Three ranks; ranks 0 and 1 share their parameters, rank 2 differs.
Checkpoint sample(size_t d = 5) {
  Checkpoint c;
  c.step = 3;
  c.identity = {{"optimizer.name", "onebit-adam"}, {"run.ranks", "3"}, {"empty", ""}};
  c.settings = {{"config.run.steps", "10"}, {"checkpoint_every", "3"}};
  for (int r = 0; r < 3; ++r) {
    RankCheckpoint s;
    s.step = 3;
    for (size_t j = 0; j < d; ++j) s.params.push_back(0.25f * static_cast<float>(j) - 1.0f);
    if (r == 2) s.params[1] = -0.0f;
    s.optimizer.put("m", std::vector<float>(d, 0.5f + static_cast<float>(r)));
    s.optimizer.put("momentum.worker_ef", std::vector<float>{1e-30f, -3.5f});
    s.optimizer.put_scalar("step", 3);
    s.optimizer.put_scalars("seed", std::vector<double>{1, 0});
    s.sampler = {1, static_cast<size_t>(8 * r)};
    s.bytes_sent = 1000 + static_cast<uint64_t>(r);
    s.bytes_sent_inter_node = (1ull << 40) + static_cast<uint64_t>(r);
    s.clock_s = 0.1 * (r + 1);
    c.ranks.push_back(std::move(s));
  }
  for (int64_t i = 1; i <= 3; ++i) {
    StepRecord rec;
    rec.step = i;
    rec.samples = 24 * i;
    rec.epoch = static_cast<double>(i) / 7.0;
    rec.stage = i < 3 ? "warmup" : "compression";
    rec.lr = 1e-3;
    rec.train_loss = 0.69314718 / static_cast<double>(i);
    if (i == 2) {
      rec.test_loss = 0.5;
      rec.test_accuracy = 0.875;
    }
    rec.var_norm_l2 = std::numeric_limits<double>::denorm_min();
    if (i == 3) rec.var_ratio_l1 = -0.0;
    rec.bytes_sent = 1000.5 * static_cast<double>(i);
    rec.time_s = 1.0 / 3.0 * static_cast<double>(i);
    rec.step_wall_s = 0.125 * static_cast<double>(i);
    rec.compute_s = 0.0625;
    rec.comm_s = 1e-7 * static_cast<double>(i);
    rec.compression_s = i == 3 ? 0.03125 : 0.0;
    rec.layer_coefficients = {0.01, 10.0};
    if (i == 3) rec.layer_ratios = {4.0};
    c.records.push_back(rec);
  }
  return c;
}

std::span<const std::byte> span_of(const std::vector<std::byte>& v) { return v; }

TEST(Checkpoint, RoundTripsBitExactly) {
  const Checkpoint c = sample();
  const auto bytes = encode_checkpoint(c);
  expect_same(decode_checkpoint(span_of(bytes), "mem"), c);
}

TEST(Checkpoint, LayoutIsMagicVersionLengthBodyCrc32) {
  const auto bytes = encode_checkpoint(sample());
  ASSERT_GT(bytes.size(), 28u);
  EXPECT_EQ(std::memcmp(bytes.data(), "CMPCKPT1", 8), 0);
  uint32_t version = 0, flags = 0, crc = 0;
  uint64_t body = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&flags, bytes.data() + 12, 4);
  std::memcpy(&body, bytes.data() + 16, 8);
  std::memcpy(&crc, bytes.data() + bytes.size() - 4, 4);
  EXPECT_EQ(version, 2u);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(body, bytes.size() - 28);
  const uLong want = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()),
                           static_cast<uInt>(bytes.size() - 4));
  EXPECT_EQ(crc, static_cast<uint32_t>(want));
  // The body starts with the step (i64) and the world size (u32).
  int64_t step = 0;
  uint32_t world = 0;
  std::memcpy(&step, bytes.data() + 24, 8);
  std::memcpy(&world, bytes.data() + 32, 4);
  EXPECT_EQ(step, 3);
  EXPECT_EQ(world, 3u);
}

TEST(Checkpoint, SharedParametersAreStoredOnce) {
  Checkpoint shared = sample(100);
  Checkpoint distinct = shared;
  distinct.ranks[1].params[7] += 1.0f;
  // Rank 1's parameters cost a u64 length and 100 floats more when they differ.
  EXPECT_EQ(encode_checkpoint(distinct).size(), encode_checkpoint(shared).size() + 8 + 400);
  expect_same(decode_checkpoint(span_of(encode_checkpoint(distinct)), "mem"), distinct);
}

TEST(Checkpoint, TruncationIsRefusedAtEveryLength) {
  const auto bytes = encode_checkpoint(sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      decode_checkpoint(span_of(bytes).first(n), "cut.ckpt");
      FAIL() << "accepted a file cut to " << n << " of " << bytes.size() << " bytes";
    } catch (const InvalidArgument& e) {
      EXPECT_THAT(e.what(), HasSubstr("checkpoint cut.ckpt: truncated")) << n;
    }
  }
  auto longer = bytes;
  longer.push_back(std::byte{0});
  EXPECT_THROW(decode_checkpoint(span_of(longer), "long"), InvalidArgument);
}

TEST(Checkpoint, EveryFlippedByteIsRefused) {
  const auto bytes = encode_checkpoint(sample());
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (const uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      auto bad = bytes;
      bad[i] ^= std::byte{mask};
      try {
        decode_checkpoint(span_of(bad), "flip");
        FAIL() << "accepted byte " << i << " ^ " << int{mask};
      } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        if (i < 8) {
          EXPECT_THAT(what, HasSubstr("bad magic"));
        } else if (i < 12) {
          EXPECT_THAT(what, HasSubstr("format version"));
        } else if (i >= 16 && i < 24) {
          EXPECT_TRUE(what.find("truncated") != std::string::npos ||
                      what.find("trailing bytes") != std::string::npos)
              << what;
        } else {
          EXPECT_THAT(what, HasSubstr("checksum mismatch")) << i;
        }
      }
    }
  }
}

// Re-stamps the checksum after an edit, as a foreign writer would.
void restamp(std::vector<std::byte>& bytes) {
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()),
                          static_cast<uInt>(bytes.size() - 4));
  const auto c = static_cast<uint32_t>(crc);
  std::memcpy(bytes.data() + bytes.size() - 4, &c, 4);
}

TEST(Checkpoint, OtherFormatVersionIsRefusedByNumber) {
  auto bytes = encode_checkpoint(sample());
  const uint32_t v3 = 3;
  std::memcpy(bytes.data() + 8, &v3, 4);
  restamp(bytes);
  try {
    decode_checkpoint(span_of(bytes), "v3.ckpt");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("format version 3, this build reads versions 1 to 2"));
  }
}

// A version 1 image of `c`: each record without the four wall-clock fields that
// follow time_s (every record's time_s is distinct, so it locates the record).
std::vector<std::byte> version1_image(const Checkpoint& c) {
  std::vector<std::byte> bytes = encode_checkpoint(c);
  for (const StepRecord& r : c.records) {
    std::array<std::byte, 8> pattern{};
    std::memcpy(pattern.data(), &r.time_s, 8);
    const auto at = std::search(bytes.begin() + 28, bytes.end(), pattern.begin(), pattern.end());
    EXPECT_NE(at, bytes.end());
    bytes.erase(at + 8, at + 8 + 32);
  }
  const uint32_t v1 = 1;
  const uint64_t body = bytes.size() - 28;
  std::memcpy(bytes.data() + 8, &v1, 4);
  std::memcpy(bytes.data() + 16, &body, 8);
  restamp(bytes);
  return bytes;
}

TEST(Checkpoint, Version1FilesAreReadWithZeroWallClockSplits) {
  const Checkpoint c = sample();
  const Checkpoint old = decode_checkpoint(span_of(version1_image(c)), "v1.ckpt");
  Checkpoint want = c;
  for (StepRecord& r : want.records) r.step_wall_s = r.compute_s = r.comm_s = r.compression_s = 0;
  expect_same(old, want);
}

TEST(Checkpoint, InconsistentBodiesAreRefusedEvenWithAValidChecksum) {
  Checkpoint missing_record = sample();
  missing_record.records.pop_back();
  EXPECT_THAT([&] { decode_checkpoint(span_of(encode_checkpoint(missing_record)), "m"); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("2 step records for a checkpoint at step 3")));
  Checkpoint misnumbered = sample();
  misnumbered.records[1].step = 7;
  EXPECT_THAT([&] { decode_checkpoint(span_of(encode_checkpoint(misnumbered)), "m"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("record 2 is of step 7")));
  // A body length field that promises more than the optimizer blob holds.
  auto bytes = encode_checkpoint(sample());
  const uint32_t world = 4;
  std::memcpy(bytes.data() + 32, &world, 4);
  restamp(bytes);
  EXPECT_THAT([&] { decode_checkpoint(span_of(bytes), "w"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("corrupt body at byte")));
  EXPECT_THAT([&] { decode_checkpoint({}, "empty"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("truncated")));
  const std::string text = "step,samples\n1,2\n";
  EXPECT_THAT([&] { decode_checkpoint(std::as_bytes(std::span(text)), "csv"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("bad magic")));
}

class CheckpointFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("compopt_checkpoint_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(CheckpointFiles, WriteReadListAndNoTemporaryLeftBehind) {
  EXPECT_TRUE(list_checkpoints(dir_).empty());
  const Checkpoint c = sample();
  for (const int64_t step : {12, 3, 100000000})
    write_checkpoint_file(checkpoint_path(dir_, step), c);
  EXPECT_EQ(checkpoint_path(dir_, 12), dir_ / "checkpoints" / "step-00000012.ckpt");
  // Foreign names are ignored.
  for (const char* name : {".step-00000013.ckpt.tmp.1", "step-.ckpt", "step-12a.ckpt", "notes.txt",
                           "step-00000014.ckpt.bak"}) {
    std::ofstream(dir_ / "checkpoints" / name) << "x";
  }
  EXPECT_EQ(list_checkpoints(dir_), (std::vector<int64_t>{3, 12, 100000000}));
  expect_same(read_checkpoint_file(checkpoint_path(dir_, 12)), c);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "checkpoints")) {
    files += e.path().filename().string().find(".tmp.") == std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(files, 3u + 4u);
  EXPECT_THAT([&] { read_checkpoint_file(dir_ / "none.ckpt"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("none.ckpt: not found")));
}

TEST_F(CheckpointFiles, ATruncatedFileIsRefusedNamingIt) {
  const auto path = checkpoint_path(dir_, 3);
  write_checkpoint_file(path, sample());
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  EXPECT_THAT([&] { read_checkpoint_file(path); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr(
                  path.string() + ": truncated: " + std::to_string(size / 2) + " bytes")));
}

TEST(CheckpointIdentity, NamesEveryMismatchedKey) {
  Checkpoint c;
  c.identity = {{"optimizer.lr", "0.001"}, {"run.ranks", "4"}, {"task", "q"}, {"old", "1"}};
  EXPECT_NO_THROW(check_identity(c, c.identity, "f"));
  try {
    check_identity(c, {{"optimizer.lr", "0.002"}, {"run.ranks", "4"}, {"task", "q"}, {"new", ""}},
                   "f.ckpt");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("checkpoint f.ckpt does not match this run: "));
    EXPECT_THAT(e.what(), HasSubstr("optimizer.lr = 0.001 in the checkpoint, 0.002 now"));
    EXPECT_THAT(e.what(), HasSubstr("old = 1 in the checkpoint, (absent) now"));
    EXPECT_THAT(e.what(), HasSubstr("new = (absent) in the checkpoint, (empty) now"));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("run.ranks")));
  }
}

}  // namespace
}  // namespace compopt
