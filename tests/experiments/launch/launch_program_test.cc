// What `compopt launch` runs for a word that is not a subcommand: the execvp() lookup,
// checked against a PATH of temporary directories made here.

#include "experiments/launch/launch_program.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

namespace fs = std::filesystem;
using testing_support::invalid_argument_message;

class LaunchProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / dir_name();
    fs::create_directories(root_ / "a");
    fs::create_directories(root_ / "b");
    write(root_ / "a" / "tool", 0644);  // not executable: skipped
    write(root_ / "b" / "tool", 0755);
    fs::create_directories(root_ / "b" / "dir");  // a directory is no program
  }
  void TearDown() override { fs::remove_all(root_); }

  static std::string dir_name() { return "compopt_launch_program_" + std::to_string(::getpid()); }
  static void write(const fs::path& path, mode_t mode) {
    std::ofstream(path) << "#!/bin/sh\n";
    ::chmod(path.c_str(), mode);
  }
  std::string path_of(const char* dir) const { return (root_ / dir).string(); }

  fs::path root_;
};

TEST_F(LaunchProgram, FirstExecutableFileOnPathWins) {
  const std::string path = path_of("a") + ":" + path_of("b");
  EXPECT_EQ(find_program("tool", path.c_str()), path_of("b") + "/tool");
  EXPECT_EQ(find_program("missing", path.c_str()), "");
  EXPECT_EQ(find_program("dir", path.c_str()), "");
  EXPECT_EQ(find_program("tool", path_of("a").c_str()), "");
}

TEST_F(LaunchProgram, NamesWithASlashAreNotLookedUp) {
  const std::string tool = path_of("b") + "/tool";
  EXPECT_EQ(find_program(tool, "/nonexistent"), tool);
  EXPECT_EQ(find_program(path_of("a") + "/tool", nullptr), "");
}

TEST_F(LaunchProgram, UnsetPathSearchesBinAndUsrBin) {
  EXPECT_EQ(find_program("sh", nullptr), "/bin/sh");
}

TEST_F(LaunchProgram, MissingProgramIsRefusedNamingIt) {
  EXPECT_NE(invalid_argument_message([] {
              resolve_program("no-such-program-xyz");
            }).find("'no-such-program-xyz' is neither a compopt subcommand nor a program"),
            std::string::npos);
  EXPECT_NE(
      invalid_argument_message([] { resolve_program("./no/such/file"); }).find("'./no/such/file'"),
      std::string::npos);
  EXPECT_NE(invalid_argument_message([] { resolve_program(""); }).find("''"), std::string::npos);
}

}  // namespace
}  // namespace compopt::cli
