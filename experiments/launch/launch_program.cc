#include "experiments/launch/launch_program.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

// A file exec can run: a regular file with execute permission for this process.
bool executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_program(const std::string& program, const char* path) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return executable_file(program) ? program : "";
  const std::string_view dirs = path != nullptr ? path : "/bin:/usr/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string_view::npos) end = dirs.size();
    const std::string_view dir = dirs.substr(start, end - start);  // empty: the current directory
    std::string candidate = dir.empty() ? program : fmt::format("{}/{}", dir, program);
    if (executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

std::string resolve_program(const std::string& program) {
  std::string found = find_program(program, std::getenv("PATH"));
  if (!found.empty()) return found;
  if (program.find('/') != std::string::npos) {
    throw InvalidArgument(fmt::format("launch: program '{}': no such executable file", program));
  }
  throw InvalidArgument(
      fmt::format("launch: '{}' is neither a compopt subcommand nor a program on PATH", program));
}

}  // namespace compopt::cli
