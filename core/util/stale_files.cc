#include "core/util/stale_files.h"

#include <signal.h>

#include <array>
#include <cerrno>
#include <string_view>

namespace compopt {

std::optional<long> leftover_owner(const std::string& name) {
  static constexpr std::array<std::string_view, 3> kKinds = {".tmp.", ".staging.", ".old."};
  if (name.size() < 2 || name[0] != '.') return std::nullopt;
  const size_t dot = name.rfind('.');
  const std::string_view digits = std::string_view(name).substr(dot + 1);
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  for (const std::string_view kind : kKinds) {
    const size_t at = dot + 1 - kind.size();
    if (dot + 1 > kind.size() + 1 && name.compare(at, kind.size(), kind) == 0) {
      return std::stol(std::string(digits));
    }
  }
  return std::nullopt;
}

bool process_alive(long pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

int remove_stale_leftovers(const std::filesystem::path& dir, bool recursive, Env& env) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return 0;
  int removed = 0;
  for (const std::string& name : env.list_dir(dir)) {
    const std::filesystem::path entry = dir / name;
    if (const auto pid = leftover_owner(name)) {
      if (!process_alive(*pid)) {
        env.remove(entry);
        ++removed;
      }
    } else if (recursive && std::filesystem::is_directory(entry, ec) &&
               !std::filesystem::is_symlink(entry, ec)) {
      removed += remove_stale_leftovers(entry, true, env);
    }
  }
  return removed;
}

}  // namespace compopt
