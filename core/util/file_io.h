#pragma once
// Whole-file I/O through an Env. write_file_atomic writes `.NAME.tmp.PID` next to the
// target, fsyncs it, renames it over the target and fsyncs the directory: readers see
// the old file or the complete new one, never a part. On failure the temporary file is
// removed and the IoError (path and errno text) propagates.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/io_env.h"

namespace compopt {

// The temporary name write_file_atomic uses for `target` in this process.
std::filesystem::path temp_path_for(const std::filesystem::path& target);

void write_file_atomic(const std::filesystem::path& path, std::span<const std::byte> data,
                       Env& env = default_env());
void write_file_atomic(const std::filesystem::path& path, std::string_view text,
                       Env& env = default_env());

std::vector<std::byte> read_file(const std::filesystem::path& path, Env& env = default_env());
std::string read_text_file(const std::filesystem::path& path, Env& env = default_env());

}  // namespace compopt
