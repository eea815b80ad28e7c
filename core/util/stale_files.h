#pragma once
// Leftovers of interrupted writers: `.NAME.tmp.PID` (write_file_atomic) and
// `.NAME.staging.PID` / `.NAME.old.PID` (run directories being replaced). They are
// stale when process PID no longer exists (kill(PID, 0) fails with ESRCH), and then
// safe to remove; entries of live processes are never touched.

#include <filesystem>
#include <optional>
#include <string>

#include "core/util/io_env.h"

namespace compopt {

// The PID of a leftover's name, or nullopt when `name` is not one.
std::optional<long> leftover_owner(const std::string& name);

bool process_alive(long pid);

// Removes the stale leftovers in `dir` (and, with `recursive`, in its subfolders);
// returns how many. A missing `dir` has none.
int remove_stale_leftovers(const std::filesystem::path& dir, bool recursive,
                           Env& env = default_env());

}  // namespace compopt
