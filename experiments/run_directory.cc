#include "experiments/run_directory.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/util/error.h"

#ifndef COMPOPT_GIT_COMMIT
#define COMPOPT_GIT_COMMIT "unknown"
#endif
#ifndef COMPOPT_VERSION
#define COMPOPT_VERSION "unknown"
#endif

namespace compopt::cli {

namespace fs = std::filesystem;

RunDirectory::RunDirectory(std::string_view command, const std::string& path) : command_(command) {
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  started_utc_ = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
  path_ = path.empty() ? fs::path("runs") / fmt::format("{}-{:%Y%m%d-%H%M%S}", command, now)
                       : fs::path(path);
  if (fs::exists(path_) && !fs::is_directory(path_)) {
    throw InvalidArgument(fmt::format("--out {}: exists and is not a directory", path_.string()));
  }
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec)
    throw InvalidArgument(
        fmt::format("--out {}: cannot create directory: {}", path_.string(), ec.message()));
}

void RunDirectory::write_file(const std::string& name, std::string_view contents) const {
  const fs::path target = path_ / name;
  const fs::path temp = path_ / fmt::format(".{}.tmp.{}", name, ::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", temp.string()));
  }
  fs::rename(temp, target);
}

void RunDirectory::write_run_json(const nlohmann::json& config) const {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const nlohmann::json run = {
      {"command", command_},
      {"config", config},
      {"version", COMPOPT_VERSION},
      {"git_commit", COMPOPT_GIT_COMMIT},
      {"started_utc", started_utc_},
      {"machine", {{"hostname", host}, {"hardware_threads", std::thread::hardware_concurrency()}}},
  };
  write_file("run.json", run.dump(2) + "\n");
}

}  // namespace compopt::cli
