#include "experiments/run_directory/run_directory.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/stale_files.h"
#include "experiments/run_directory/run_status.h"
#include "experiments/run_directory/version.h"

namespace compopt::cli {
namespace {

namespace fs = std::filesystem;

// `dir` without a trailing separator, e.g. runs/x for "runs/x/".
fs::path leaf_of(const fs::path& dir) {
  const fs::path clean = dir.lexically_normal();
  return clean.has_filename() ? clean : clean.parent_path();
}

fs::path parent_of(const fs::path& dir) {
  const fs::path parent = leaf_of(dir).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

fs::path sibling(const fs::path& dir, const char* kind) {
  return parent_of(dir) /
         fmt::format(".{}.{}.{}", leaf_of(dir).filename().string(), kind, ::getpid());
}

bool non_empty_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && !fs::is_empty(dir, ec);
}

// Replaces `target` by `staging`: target -> .NAME.old.PID, staging -> target, remove old.
void swap_in(Env& env, const fs::path& staging, const fs::path& target) {
  const fs::path old = sibling(target, "old");
  env.rename(target, old);
  try {
    env.rename(staging, target);
  } catch (...) {
    env.rename(old, target);
    throw;
  }
  env.sync_dir(parent_of(target));
  try {
    env.remove(old);
  } catch (const std::exception&) {  // the new run is in place; the next run removes `old`
  }
}

// Leftovers of dead processes: staging/old copies of `dir` beside it and, in a run
// directory (one with run.json), temporary files anywhere inside. Nothing else is touched.
void remove_stale(Env& env, const fs::path& dir) {
  const std::string prefix = "." + leaf_of(dir).filename().string() + ".";
  std::error_code ec;
  if (fs::is_directory(parent_of(dir), ec)) {
    for (const std::string& name : env.list_dir(parent_of(dir))) {
      const auto pid = leftover_owner(name);
      if (pid && name.rfind(prefix, 0) == 0 && !process_alive(*pid))
        env.remove(parent_of(dir) / name);
    }
  }
  if (fs::is_regular_file(dir / "run.json", ec)) remove_stale_leftovers(dir, true, env);
}

}  // namespace

OutMode out_mode(bool overwrite) { return overwrite ? OutMode::kOverwrite : OutMode::kNew; }

void add_overwrite_flag(CLI::App& cmd, bool& overwrite) {
  cmd.add_flag("--overwrite", overwrite,
               "replace an existing --out directory, once the new run has succeeded (until "
               "then it stays as it is)");
}

CLI::Validator non_empty_out() {
  auto check = [](std::string& text) {
    if (text.empty()) {
      throw InvalidArgument(
          "--out '': an empty path, expected a directory (leave --out out for "
          "runs/<command>-<time>)");
    }
    return std::string();
  };
  return CLI::Validator(check, "DIR");
}

void check_out_dir(const std::string& out, OutMode mode) {
  if (out.empty()) return;
  std::error_code ec;
  const bool exists = fs::exists(out, ec);
  if (exists && !fs::is_directory(out, ec)) {
    throw InvalidArgument(fmt::format("--out {}: exists and is not a directory", out));
  }
  if (mode == OutMode::kResume && !exists) {
    throw InvalidArgument(fmt::format("--resume {}: not a directory", out));
  }
  const auto run = exists ? read_run_json(out) : std::nullopt;
  if (mode == OutMode::kNew && non_empty_dir(out)) {
    throw InvalidArgument(
        fmt::format("--out {} exists; pass --overwrite to replace it once the new run succeeds, "
                    "or --resume to continue it{}",
                    out, run ? fmt::format(" (its run.json: {})", run_status(*run)) : ""));
  }
  if (run && mode != OutMode::kNew && run_still_running_here(*run)) {
    throw InvalidArgument(fmt::format(
        "{} {}: its run is still running (process {} on this host); wait for it or stop it first",
        mode == OutMode::kResume ? "--resume" : "--out", out, (*run)["process"]["pid"].dump()));
  }
  if (run && mode == OutMode::kResume && run_status(*run).rfind("stale", 0) == 0)
    fmt::print(stderr, "compopt: {}: the run was {}; resuming it\n", out, run_status(*run));
}

RunDirectory::RunDirectory(std::string_view command, const std::string& out, OutMode mode, Env& env)
    : command_(command), mode_(mode), env_(env) {
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  started_utc_ = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
  path_ = out.empty() ? fs::path("runs") / fmt::format("{}-{:%Y%m%d-%H%M%S}", command, now)
                      : fs::path(out);
  if (mode != OutMode::kInside) remove_stale(env_, path_);
  check_out_dir(path_.string(), mode == OutMode::kInside ? OutMode::kOverwrite : mode);
  work_ = mode == OutMode::kOverwrite && non_empty_dir(path_) ? sibling(path_, "staging") : path_;
  try {
    env_.create_dirs(work_);
  } catch (const std::exception& e) {
    throw InvalidArgument(fmt::format("--out {}: {}", path_.string(), e.what()));
  }
}

void RunDirectory::write_file(const std::string& name, std::string_view contents) const {
  const fs::path target = work_ / name;
  if (target.has_parent_path()) env_.create_dirs(target.parent_path());
  write_file_atomic(target, contents, env_);
}

void RunDirectory::write_run_json(const nlohmann::json& config) {
  config_ = config;
  write_status("running", "");
}

void RunDirectory::write_status(const std::string& status, const std::string& error) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  nlohmann::json run = {
      {"command", command_},
      {"status", status},
      {"config", config_},
      {"version", compopt_version()},
      {"git_commit", compopt_git_commit()},
      {"started_utc", started_utc_},
      {"process", this_process_record()},
      {"machine", {{"hostname", host}, {"hardware_threads", std::thread::hardware_concurrency()}}},
  };
  if (!error.empty()) run["error"] = error;
  write_file("run.json", run.dump(2) + "\n");
}

void RunDirectory::run(const std::function<void()>& body) {
  try {
    if (mode_ == OutMode::kResume && config_.is_null()) config_ = previous_config();
    write_status("running", "");
    body();
    complete();
  } catch (const std::exception& e) {
    record_failure(e.what());
    throw;
  }
}

nlohmann::json RunDirectory::previous_config() const {
  std::error_code ec;
  if (!fs::is_regular_file(work_ / "run.json", ec)) return nullptr;
  const auto run = nlohmann::json::parse(read_text_file(work_ / "run.json", env_), nullptr, false);
  return run.is_object() ? run.value("config", nlohmann::json()) : nlohmann::json();
}

void RunDirectory::complete() {
  write_status("completed", "");
  if (work_ != path_) swap_in(env_, work_, path_);
  work_ = path_;
}

void RunDirectory::record_failure(const std::string& message) noexcept {
  try {
    if (work_ != path_) {
      env_.remove(work_);
    } else {
      write_status("failed", message);
    }
  } catch (const std::exception&) {  // the run's own error is the one to report
  }
}

}  // namespace compopt::cli
