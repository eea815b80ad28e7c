// write_file_atomic / read_file through the POSIX Env and a FaultInjectingEnv: a failed
// write leaves the old file byte-identical and no temporary file; errors name the path
// and the errno text; short writes are completed.

#include "core/util/file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "core/util/fault_injecting_env.h"
#include "core/util/io_error.h"

namespace compopt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("compopt-file-io-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<std::string> entries() const { return default_env().list_dir(dir_); }

  fs::path dir_;
};

TEST_F(FileIoTest, WritesAndReadsBack) {
  write_file_atomic(dir_ / "a.txt", "hello\n");
  EXPECT_EQ(read_text_file(dir_ / "a.txt"), "hello\n");
  write_file_atomic(dir_ / "a.txt", "replaced");
  EXPECT_EQ(read_text_file(dir_ / "a.txt"), "replaced");
  EXPECT_EQ(entries(), std::vector<std::string>{"a.txt"});
}

TEST_F(FileIoTest, TempNameIsHiddenAndCarriesThePid) {
  EXPECT_EQ(temp_path_for(dir_ / "m.csv"), dir_ / (".m.csv.tmp." + std::to_string(::getpid())));
}

TEST_F(FileIoTest, NoSpaceLeavesTheOldFileAndNoTemporary) {
  write_file_atomic(dir_ / "metrics.csv", "old contents");
  FaultInjectingEnv env;
  env.inject({.op = IoOp::kWrite, .error = ENOSPC});
  try {
    write_file_atomic(dir_ / "metrics.csv", "new contents", env);
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_code(), ENOSPC);
    EXPECT_THAT(e.what(), HasSubstr("cannot write " + temp_path_for(dir_ / "metrics.csv").string() +
                                    ": No space left on device"));
  }
  EXPECT_EQ(read_text_file(dir_ / "metrics.csv"), "old contents");
  EXPECT_EQ(entries(), std::vector<std::string>{"metrics.csv"});
  EXPECT_EQ(env.fired(), 1);
}

TEST_F(FileIoTest, FsyncErrorIsReportedWithThePath) {
  FaultInjectingEnv env;
  env.inject({.op = IoOp::kSync, .error = EIO});
  EXPECT_THAT(
      [&] { write_file_atomic(dir_ / "x.ckpt", "data", env); },
      ::testing::ThrowsMessage<IoError>(HasSubstr(
          "cannot sync " + temp_path_for(dir_ / "x.ckpt").string() + ": Input/output error")));
  EXPECT_TRUE(entries().empty());
}

TEST_F(FileIoTest, RenameFailureKeepsTheOldFile) {
  write_file_atomic(dir_ / "run.json", "{}");
  FaultInjectingEnv env;
  env.inject({.op = IoOp::kRename, .error = EXDEV, .path_contains = "run.json"});
  EXPECT_THAT([&] { write_file_atomic(dir_ / "run.json", "{\"a\": 1}", env); },
              ::testing::ThrowsMessage<IoError>(HasSubstr("Invalid cross-device link")));
  EXPECT_EQ(read_text_file(dir_ / "run.json"), "{}");
  EXPECT_EQ(entries(), std::vector<std::string>{"run.json"});
}

TEST_F(FileIoTest, ShortWritesAreCompleted) {
  FaultInjectingEnv env;
  env.inject({.op = IoOp::kWrite, .short_write = true});  // every write writes half
  const std::string text(1000, 'z');
  write_file_atomic(dir_ / "big", text, env);
  EXPECT_EQ(read_text_file(dir_ / "big"), text);
  // 1000, 500, 250, 125, 63, 32, 16, 8, 4, 2, 1 bytes left: eleven calls of write_some.
  EXPECT_EQ(env.count(IoOp::kWrite), 11);
}

TEST_F(FileIoTest, NthFaultOnlyHitsTheNthMatchingOperation) {
  FaultInjectingEnv env;
  env.inject({.op = IoOp::kOpen, .error = EACCES, .nth = 2, .path_contains = "b"});
  write_file_atomic(dir_ / "a", "1", env);  // does not match the path
  write_file_atomic(dir_ / "b", "2", env);  // first match
  EXPECT_THROW(write_file_atomic(dir_ / "b", "3", env), IoError);
  write_file_atomic(dir_ / "b", "4", env);  // third match
  EXPECT_EQ(read_text_file(dir_ / "b"), "4");
  EXPECT_EQ(env.fired(), 1);
}

TEST_F(FileIoTest, ReadingAMissingFileNamesIt) {
  EXPECT_THAT([&] { read_file(dir_ / "none"); },
              ::testing::ThrowsMessage<IoError>(HasSubstr(
                  "cannot read " + (dir_ / "none").string() + ": No such file or directory")));
}

}  // namespace
}  // namespace compopt
