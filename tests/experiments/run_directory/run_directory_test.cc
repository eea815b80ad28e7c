// RunDirectory: refusal of an existing --out, replacement only after success (staging +
// rename), run.json status transitions, and the fault cases through a FaultInjectingEnv
// (ENOSPC mid-run, EIO on fsync, a failed rename), plus the cleanup of stale leftovers.

#include "experiments/run_directory/run_directory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "core/util/error.h"
#include "core/util/fault_injecting_env.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"

namespace compopt::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Every file below `root` (hidden ones included) with its contents.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string rel = fs::relative(e.path(), root).string();
    files[rel] = e.is_regular_file() ? read_text_file(e.path()) : "<dir>";
  }
  return files;
}

nlohmann::json run_json(const fs::path& dir) {
  return nlohmann::json::parse(read_text_file(dir / "run.json"));
}

class RunDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("compopt-rundir-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    old_ = root_ / "run";
    fs::create_directories(old_ / "checkpoints");
    std::ofstream(old_ / "metrics.csv") << "step,loss\n1,0.5\n";
    std::ofstream(old_ / "run.json") << "{\"status\": \"completed\"}\n";
    std::ofstream(old_ / "checkpoints" / "step-00000001.ckpt") << "ckpt";
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_, old_;
};

TEST_F(RunDirectoryTest, RefusesAnExistingNonEmptyOut) {
  const auto before = snapshot(root_);
  EXPECT_THAT([&] { RunDirectory("profile", old_.string()); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("--out " + old_.string() +
                            " exists; pass --overwrite to replace it once the new run "
                            "succeeds, or --resume to continue it")));
  EXPECT_THROW(check_out_dir(old_.string(), OutMode::kNew), InvalidArgument);
  EXPECT_NO_THROW(check_out_dir(old_.string(), OutMode::kOverwrite));
  EXPECT_EQ(snapshot(root_), before);
}

TEST_F(RunDirectoryTest, AcceptsAnEmptyOrMissingOut) {
  fs::create_directories(root_ / "empty");
  RunDirectory empty("sweep", (root_ / "empty").string());
  EXPECT_EQ(empty.work_path(), root_ / "empty");
  RunDirectory fresh("sweep", (root_ / "a" / "b").string());
  EXPECT_TRUE(fs::is_directory(root_ / "a" / "b"));
  EXPECT_THROW(RunDirectory("sweep", (root_ / "x").string(), OutMode::kResume), InvalidArgument);
}

TEST_F(RunDirectoryTest, StatusGoesFromRunningToCompleted) {
  const fs::path out = root_ / "new";
  RunDirectory dir("train", out.string());
  std::string seen;
  dir.run([&] {
    seen = run_json(out)["status"];
    dir.write_file("metrics.csv", "step\n1\n");
    dir.write_run_json({{"steps", 1}});
  });
  EXPECT_EQ(seen, "running");
  const auto run = run_json(out);
  EXPECT_EQ(run["status"], "completed");
  EXPECT_EQ(run["command"], "train");
  EXPECT_EQ(run["config"]["steps"], 1);
  EXPECT_FALSE(run.contains("error"));
}

TEST_F(RunDirectoryTest, AFailedNewRunKeepsItsFilesAndRecordsTheError) {
  const fs::path out = root_ / "new";
  RunDirectory dir("train", out.string());
  EXPECT_THROW(dir.run([&] {
    dir.write_file("checkpoints/step-00000005.ckpt", "ckpt");
    throw std::runtime_error("diverged at step 6");
  }),
               std::runtime_error);
  const auto run = run_json(out);
  EXPECT_EQ(run["status"], "failed");
  EXPECT_EQ(run["error"], "diverged at step 6");
  EXPECT_EQ(read_text_file(out / "checkpoints" / "step-00000005.ckpt"), "ckpt");
}

TEST_F(RunDirectoryTest, OverwriteReplacesOnlyAfterSuccess) {
  RunDirectory dir("profile", old_.string(), OutMode::kOverwrite);
  ASSERT_NE(dir.work_path(), old_);
  EXPECT_EQ(dir.work_path(), root_ / (".run.staging." + std::to_string(::getpid())));
  const auto before = snapshot(old_);
  dir.run([&] {
    dir.write_file("profile.csv", "a\n1\n");
    EXPECT_EQ(snapshot(old_), before) << "the old directory changed before the run succeeded";
  });
  EXPECT_EQ(dir.work_path(), old_);
  const auto now = snapshot(old_);
  EXPECT_EQ(now.count("metrics.csv"), 0u) << "the old run's files are gone";
  EXPECT_EQ(now.at("profile.csv"), "a\n1\n");
  EXPECT_EQ(run_json(old_)["status"], "completed");
  EXPECT_EQ(default_env().list_dir(root_), std::vector<std::string>{"run"});
}

TEST_F(RunDirectoryTest, NoSpaceMidRunLeavesTheOldDirectoryByteIdentical) {
  const auto before = snapshot(root_);
  FaultInjectingEnv env;
  env.inject({.op = IoOp::kWrite, .error = ENOSPC, .path_contains = "sweep.csv"});
  RunDirectory dir("sweep", old_.string(), OutMode::kOverwrite, env);
  EXPECT_THAT([&] { dir.run([&] { dir.write_file("sweep.csv", std::string(4096, 'x')); }); },
              ::testing::ThrowsMessage<IoError>(HasSubstr("No space left on device")));
  EXPECT_EQ(snapshot(root_), before) << "no staging directory, no temporary file";
}

TEST_F(RunDirectoryTest, FsyncErrorNamesThePathAndKeepsTheOldDirectory) {
  const auto before = snapshot(root_);
  FaultInjectingEnv env;
  env.inject({.op = IoOp::kSync, .error = EIO, .path_contains = "collectives.csv"});
  RunDirectory dir("collectives", old_.string(), OutMode::kOverwrite, env);
  try {
    dir.run([&] { dir.write_file("collectives.csv", "v\n"); });
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_code(), EIO);
    EXPECT_THAT(e.what(),
                HasSubstr("cannot sync " + dir.work_path().string() + "/.collectives.csv.tmp."));
    EXPECT_THAT(e.what(), HasSubstr(": Input/output error"));
  }
  EXPECT_EQ(snapshot(root_), before);
}

TEST_F(RunDirectoryTest, AFailedSwapRestoresTheOldDirectory) {
  const auto before = snapshot(root_);
  FaultInjectingEnv env;
  env.inject({.op = IoOp::kRename, .error = EBUSY, .path_contains = ".staging."});
  RunDirectory dir("profile", old_.string(), OutMode::kOverwrite, env);
  EXPECT_THAT([&] { dir.run([&] { dir.write_file("profile.csv", "a\n"); }); },
              ::testing::ThrowsMessage<IoError>(HasSubstr("Device or resource busy")));
  EXPECT_EQ(snapshot(root_), before);
}

TEST_F(RunDirectoryTest, ResumeWritesInPlaceAndKeepsTheConfig) {
  std::ofstream(old_ / "run.json") << R"({"status": "failed", "config": {"steps": 9}})";
  RunDirectory dir("train", old_.string(), OutMode::kResume);
  EXPECT_EQ(dir.work_path(), old_);
  dir.run([&] { dir.write_file("metrics.csv", "step\n"); });
  EXPECT_EQ(run_json(old_)["status"], "completed");
  EXPECT_EQ(run_json(old_)["config"]["steps"], 9);
  EXPECT_EQ(read_text_file(old_ / "checkpoints" / "step-00000001.ckpt"), "ckpt");
}

TEST_F(RunDirectoryTest, StaleLeftoversOfDeadProcessesAreRemoved) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const std::string dead = std::to_string(child);
  std::ofstream(old_ / (".metrics.csv.tmp." + dead)) << "half";
  std::ofstream(old_ / "checkpoints" / (".step-00000002.ckpt.tmp." + dead)) << "half";
  fs::create_directories(root_ / (".run.staging." + dead));
  // Refused (the old run is not empty), but the leftovers are gone.
  EXPECT_THROW(RunDirectory("train", old_.string()), InvalidArgument);
  EXPECT_EQ(default_env().list_dir(root_), std::vector<std::string>{"run"});
  EXPECT_EQ(default_env().list_dir(old_),
            (std::vector<std::string>{"checkpoints", "metrics.csv", "run.json"}));
  EXPECT_EQ(default_env().list_dir(old_ / "checkpoints"),
            std::vector<std::string>{"step-00000001.ckpt"});
}

}  // namespace
}  // namespace compopt::cli
