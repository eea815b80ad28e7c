#pragma once
// The output folder of one command (docs/architecture.md "Outputs"): CSV files, run.json with
// the resolved configuration and provenance, figures. Every file is written to a
// temporary name and renamed, so a failed run never leaves a half-written file
// that looks complete, and an existing result is replaced only by a complete one.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace compopt::cli {

class RunDirectory {
 public:
  // Uses `path` if given, else runs/<command>-<UTC timestamp>. Creates it.
  // Throws InvalidArgument when the path exists and is not a directory.
  RunDirectory(std::string_view command, const std::string& path);

  const std::filesystem::path& path() const { return path_; }

  // Writes `contents` to path()/name atomically.
  void write_file(const std::string& name, std::string_view contents) const;

  // Writes run.json: {"command", "config", "version", "git_commit", "machine", "started_utc"}.
  void write_run_json(const nlohmann::json& config) const;

 private:
  std::string command_;
  std::filesystem::path path_;
  std::string started_utc_;
};

}  // namespace compopt::cli
