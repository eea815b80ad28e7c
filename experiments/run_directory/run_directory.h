#pragma once
// The output folder of one command (docs/training.md "Run directories"): CSV files, run.json with
// the resolved configuration, provenance and status, figures. A run never loses data:
//
// - kNew: `--out` must not exist or be empty (otherwise InvalidArgument, exit 2, before
//   any work); the run writes into it directly, so a killed run keeps its checkpoints.
// - kOverwrite (`--overwrite`): an existing directory is replaced only once the new run
//   has succeeded. The run writes into `.NAME.staging.PID` next to it, and complete()
//   swaps it in by rename; until then the old directory stays byte-identical, and on
//   failure the staging directory is removed.
// - kResume (`train --resume`): continues the run in the existing directory.
// - kInside: a folder inside a run another RunDirectory owns (reproduce's studies).
//
// run.json records "status": "running" from the start of run(), then "completed", or
// "failed" with "error". Every file is written atomically through an Env
// (core/util/file_io.h). When a run opens the directory, leftovers of processes that
// no longer exist are removed: its `.NAME.staging.PID` / `.NAME.old.PID` siblings, and
// temporary files inside it if it is a run directory (holds run.json).

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/util/io_env.h"

namespace compopt::cli {

enum class OutMode { kNew, kOverwrite, kResume, kInside };

// kOverwrite when `overwrite`, else kNew.
OutMode out_mode(bool overwrite);

// Registers --overwrite (sets `overwrite`) on a command that has --out.
void add_overwrite_flag(CLI::App& cmd, bool& overwrite);

// The check of every --out: an empty path given on the command line is refused (left out, --out
// means the default folder runs/<command>-<time>).
CLI::Validator non_empty_out();

// Throws InvalidArgument when `out` cannot be used in `mode` (a file; kNew: a non-empty
// directory; kResume: missing). An empty `out` (the default folder) always passes.
void check_out_dir(const std::string& out, OutMode mode);

class RunDirectory {
 public:
  // Uses `out` if given, else runs/<command>-<UTC timestamp>; creates the folder the run
  // writes into after check_out_dir and the stale-file cleanup.
  RunDirectory(std::string_view command, const std::string& out, OutMode mode = OutMode::kNew,
               Env& env = default_env());
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  // The run's directory, as users name it.
  const std::filesystem::path& path() const { return path_; }
  // Where files go until complete(): path(), or the staging directory of kOverwrite.
  const std::filesystem::path& work_path() const { return work_; }
  Env& env() const { return env_; }

  // Writes `contents` to work_path()/name atomically (name may contain folders).
  void write_file(const std::string& name, std::string_view contents) const;

  // Sets the configuration run.json records and rewrites it: {"command", "status",
  // "config", "version", "git_commit", "machine", "started_utc"}.
  void write_run_json(const nlohmann::json& config);

  // Marks the run "running", runs `body`, then complete(). When `body` or completing
  // throws: records "failed" with the message (kOverwrite: removes the staging
  // directory instead) and rethrows.
  void run(const std::function<void()>& body);

 private:
  nlohmann::json previous_config() const;  // of run.json in work_path(), or null
  void complete();
  void record_failure(const std::string& message) noexcept;
  void write_status(const std::string& status, const std::string& error);

  std::string command_;
  OutMode mode_;
  Env& env_;
  std::filesystem::path path_;
  std::filesystem::path work_;
  std::string started_utc_;
  nlohmann::json config_;
};

}  // namespace compopt::cli
