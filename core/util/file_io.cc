#include "core/util/file_io.h"

#include <fmt/format.h>
#include <unistd.h>

namespace compopt {
namespace {

namespace fs = std::filesystem;

void write_all(WritableFile& file, std::span<const std::byte> data) {
  while (!data.empty()) data = data.subspan(file.write_some(data));
}

}  // namespace

fs::path temp_path_for(const fs::path& target) {
  return target.parent_path() / fmt::format(".{}.tmp.{}", target.filename().string(), ::getpid());
}

void write_file_atomic(const fs::path& path, std::span<const std::byte> data, Env& env) {
  const fs::path temp = temp_path_for(path);
  try {
    auto file = env.open_for_write(temp);
    write_all(*file, data);
    file->sync();
    file->close();
    env.rename(temp, path);
  } catch (...) {
    try {
      env.remove(temp);
    } catch (const std::exception&) {  // the first error is the one to report
    }
    throw;
  }
  env.sync_dir(path.parent_path());
}

void write_file_atomic(const fs::path& path, std::string_view text, Env& env) {
  write_file_atomic(path, std::as_bytes(std::span(text.data(), text.size())), env);
}

std::vector<std::byte> read_file(const fs::path& path, Env& env) { return env.read_file(path); }

std::string read_text_file(const fs::path& path, Env& env) {
  const std::vector<std::byte> bytes = env.read_file(path);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace compopt
