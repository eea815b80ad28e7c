#include "experiments/run_directory/run_status.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/util/stale_files.h"

namespace compopt::cli {
namespace {

std::string host_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

// Field 22 of /proc/PID/stat (start time in clock ticks after boot); 0 when unreadable.
unsigned long long start_ticks(long pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');  // the command name may hold spaces and ')'
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(text.substr(name_end + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::stoull(field);
  }
  return 0;
}

// The recorded process of a run.json when it ran on this host.
std::optional<std::pair<long, unsigned long long>> local_process(const nlohmann::json& run) {
  const auto process = run.find("process");
  if (process == run.end() || !process->is_object()) return std::nullopt;
  const auto pid = process->find("pid");
  const auto host = process->find("host");
  if (pid == process->end() || !pid->is_number_integer() || host == process->end() ||
      !host->is_string() || host->get<std::string>() != host_name())
    return std::nullopt;
  const auto ticks = process->find("start_ticks");
  const unsigned long long start =
      ticks != process->end() && ticks->is_number_unsigned() ? ticks->get<unsigned long long>() : 0;
  return std::pair{pid->get<long>(), start};
}

// True when the recorded process is gone: no such PID, or a PID started at another time.
bool process_gone(long pid, unsigned long long recorded_start) {
  if (!process_alive(pid)) return true;
  const unsigned long long now_start = start_ticks(pid);
  return recorded_start != 0 && now_start != 0 && now_start != recorded_start;
}

}  // namespace

nlohmann::json this_process_record() {
  const long pid = ::getpid();
  return {{"pid", pid}, {"host", host_name()}, {"start_ticks", start_ticks(pid)}};
}

std::string run_status(const nlohmann::json& run) {
  std::string status =
      run.is_object() ? run.value("status", std::string("unknown")) : std::string("unknown");
  if (status != "running") return status;
  const auto process = local_process(run);
  if (process && process_gone(process->first, process->second))
    return fmt::format("stale (process {} no longer exists)", process->first);
  return status;
}

bool run_still_running_here(const nlohmann::json& run) {
  const auto process = local_process(run);
  return run_status(run) == "running" && process && process->first != ::getpid();
}

std::optional<nlohmann::json> read_run_json(const std::filesystem::path& dir) {
  std::ifstream in(dir / "run.json");
  if (!in) return std::nullopt;
  auto run = nlohmann::json::parse(in, nullptr, false);
  if (!run.is_object()) return std::nullopt;
  return run;
}

}  // namespace compopt::cli
