#pragma once
// The status of a run directory as a reader should report it. run.json says "running" from
// the start of a run until it completes or fails; a run whose process was killed (SIGKILL, a
// killed `compopt launch` or mpirun, a lost node) never gets to change that. So run.json also
// records the writer: {"process": {"pid", "host", "start_ticks"}} (start_ticks: the process's
// start time in clock ticks after boot, /proc/PID/stat, which tells a reused PID apart). A
// "running" run whose process is gone on this host is reported stale.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace compopt::cli {

// {"pid", "host", "start_ticks"} of this process, for run.json's "process".
nlohmann::json this_process_record();

// The recorded status of a parsed run.json: "completed", "failed", "running", or
// "stale (process N no longer exists)" when it says "running" and names a process of this
// host that no longer exists (or whose PID now belongs to a younger process). A "running"
// run on another host, or one written before runs recorded their process, stays "running".
std::string run_status(const nlohmann::json& run);

// True when run_status says the run's process still runs on this host, and it is not this
// process.
bool run_still_running_here(const nlohmann::json& run);

// run.json of `dir` parsed, or nullopt when it is missing or not a JSON object.
std::optional<nlohmann::json> read_run_json(const std::filesystem::path& dir);

}  // namespace compopt::cli
