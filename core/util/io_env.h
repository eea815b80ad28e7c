#pragma once
// Env: every file-system operation compopt's files go through (in the spirit of
// leveldb's Env/EnvWrapper), so tests can inject faults (FaultInjectingEnv) into
// checkpoints, run directories and CSV files alike. Every failure throws IoError
// naming the path and the errno text. default_env() is the POSIX implementation.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace compopt {

// A file open for writing; close() (or the destructor) releases it.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Writes a prefix of `data` (at least one byte of a non-empty span); returns its size.
  virtual size_t write_some(std::span<const std::byte> data) = 0;
  virtual void sync() = 0;  // fsync: the written bytes are on disk
  virtual void close() = 0;
};

class Env {
 public:
  virtual ~Env() = default;
  // Creates or truncates `path`.
  virtual std::unique_ptr<WritableFile> open_for_write(const std::filesystem::path& path) = 0;
  virtual std::vector<std::byte> read_file(const std::filesystem::path& path) = 0;
  // fsync of a directory: renames and creations in it are on disk.
  virtual void sync_dir(const std::filesystem::path& dir) = 0;
  // Atomic on one file system; replaces a file or an empty directory at `to`.
  virtual void rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  // Removes a file or a whole directory tree; a missing path is no error.
  virtual void remove(const std::filesystem::path& path) = 0;
  // Names of the entries of `dir` (not "." and ".."), sorted.
  virtual std::vector<std::string> list_dir(const std::filesystem::path& dir) = 0;
  // Creates `dir` and its missing parents; an existing directory is no error.
  virtual void create_dirs(const std::filesystem::path& dir) = 0;
};

// Forwards every call to `target`; override the calls to change.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env& target) : target_(target) {}
  Env& target() const { return target_; }

  std::unique_ptr<WritableFile> open_for_write(const std::filesystem::path& path) override {
    return target_.open_for_write(path);
  }
  std::vector<std::byte> read_file(const std::filesystem::path& path) override {
    return target_.read_file(path);
  }
  void sync_dir(const std::filesystem::path& dir) override { target_.sync_dir(dir); }
  void rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    target_.rename(from, to);
  }
  void remove(const std::filesystem::path& path) override { target_.remove(path); }
  std::vector<std::string> list_dir(const std::filesystem::path& dir) override {
    return target_.list_dir(dir);
  }
  void create_dirs(const std::filesystem::path& dir) override { target_.create_dirs(dir); }

 private:
  Env& target_;
};

// The process-wide POSIX Env.
Env& default_env();

}  // namespace compopt
