// run_status: a run.json that says "running" is reported stale when its process is gone from
// this host (no such PID, or the PID now names a process started at another time), and stays
// "running" for a live process or another host. A run directory refuses to resume or replace
// a run whose process still runs here.

#include "experiments/run_directory/run_status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "core/util/error.h"
#include "experiments/run_directory/run_directory.h"

namespace compopt::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The PID of a child that has exited and been reaped: no process has it (until reused).
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

nlohmann::json running_as(const nlohmann::json& process) {
  return {{"status", "running"}, {"process", process}};
}

TEST(RunStatusTest, ARunningRunOfAGoneProcessIsStale) {
  nlohmann::json process = this_process_record();
  const long pid = dead_pid();
  process["pid"] = pid;
  EXPECT_EQ(run_status(running_as(process)),
            "stale (process " + std::to_string(pid) + " no longer exists)");
  EXPECT_FALSE(run_still_running_here(running_as(process)));
}

TEST(RunStatusTest, APidNowHeldByAnotherProcessIsStale) {
  nlohmann::json process = this_process_record();
  ASSERT_GT(process["start_ticks"].get<unsigned long long>(), 0u);
  process["pid"] = 1;  // init runs, but started at another time than recorded
  EXPECT_EQ(run_status(running_as(process)), "stale (process 1 no longer exists)");
}

TEST(RunStatusTest, ALiveProcessOrAnotherHostStaysRunning) {
  const nlohmann::json me = this_process_record();
  EXPECT_EQ(run_status(running_as(me)), "running");
  EXPECT_FALSE(run_still_running_here(running_as(me)));  // this process is not "another"
  nlohmann::json elsewhere = me;
  elsewhere["host"] = "another-host-" + me["host"].get<std::string>();
  elsewhere["pid"] = dead_pid();
  EXPECT_EQ(run_status(running_as(elsewhere)), "running");
  EXPECT_EQ(run_status({{"status", "running"}}), "running");  // written before pids
  EXPECT_EQ(run_status({{"status", "completed"}, {"process", elsewhere}}), "completed");
}

TEST(RunStatusTest, ResumingARunWhoseProcessStillRunsIsRefused) {
  const fs::path dir =
      fs::temp_directory_path() / ("compopt-runstatus-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  nlohmann::json process = this_process_record();
  process["pid"] = child;
  process["start_ticks"] = 0;  // not checked: the child's own is not known here
  std::ofstream(dir / "run.json") << running_as(process).dump();
  EXPECT_THAT(
      [&] { check_out_dir(dir.string(), OutMode::kResume); },
      ::testing::ThrowsMessage<InvalidArgument>(HasSubstr(
          "its run is still running (process " + std::to_string(child) + " on this host)")));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_NO_THROW(check_out_dir(dir.string(), OutMode::kResume));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace compopt::cli
