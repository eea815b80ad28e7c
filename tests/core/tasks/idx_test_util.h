#pragma once
// Writes small IDX files (plain or gzip) for the reader and loader tests.

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace compopt::testing {

inline std::vector<uint8_t> idx_bytes(uint8_t type, const std::vector<uint32_t>& dims,
                                      const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (const uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(d >> shift));
  }
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

inline void write_plain(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline void write_gz(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.string().c_str(), "wb");
  if (!bytes.empty()) gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

// A fresh empty folder under the test temp dir.
inline std::filesystem::path temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("compopt_tasks_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace compopt::testing
