// Leftovers of dead processes are removed; those of live ones and ordinary files stay.

#include "core/util/stale_files.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace compopt {
namespace {

namespace fs = std::filesystem;

// A PID that is certainly dead: a child that has exited and been reaped.
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(LeftoverOwner, ParsesTheThreeKinds) {
  EXPECT_EQ(leftover_owner(".metrics.csv.tmp.123"), 123);
  EXPECT_EQ(leftover_owner(".run.staging.45"), 45);
  EXPECT_EQ(leftover_owner(".run.old.6"), 6);
  EXPECT_EQ(leftover_owner("metrics.csv.tmp.123"), std::nullopt);  // not hidden
  EXPECT_EQ(leftover_owner(".tmp.123"), std::nullopt);             // no name
  EXPECT_EQ(leftover_owner(".a.tmp.12x"), std::nullopt);
  EXPECT_EQ(leftover_owner(".a.backup.12"), std::nullopt);
}

TEST(ProcessAlive, SelfYesReapedChildNo) {
  EXPECT_TRUE(process_alive(::getpid()));
  EXPECT_FALSE(process_alive(dead_pid()));
  EXPECT_FALSE(process_alive(0));
}

TEST(RemoveStaleLeftovers, RemovesOnlyThoseOfDeadProcesses) {
  const fs::path dir = fs::temp_directory_path() / ("compopt-stale-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "checkpoints");
  const long dead = dead_pid(), self = ::getpid();
  const auto touch = [](const fs::path& p) { std::ofstream(p) << "x"; };
  touch(dir / "metrics.csv");
  touch(dir / (".metrics.csv.tmp." + std::to_string(dead)));
  touch(dir / (".run.json.tmp." + std::to_string(self)));
  touch(dir / "checkpoints" / (".step-00000001.ckpt.tmp." + std::to_string(dead)));
  fs::create_directories(dir / (".x.staging." + std::to_string(dead)) / "sub");
  EXPECT_EQ(remove_stale_leftovers(dir, false), 2);  // the top-level file and staging folder
  EXPECT_EQ(remove_stale_leftovers(dir, true), 1);   // the one in checkpoints/
  EXPECT_EQ(default_env().list_dir(dir),
            (std::vector<std::string>{".run.json.tmp." + std::to_string(self), "checkpoints",
                                      "metrics.csv"}));
  EXPECT_TRUE(default_env().list_dir(dir / "checkpoints").empty());
  EXPECT_EQ(remove_stale_leftovers(dir / "missing", true), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace compopt
