// The POSIX Env behind default_env(): open/write/fsync/close, rename(2), and
// std::filesystem for directories, each failure an IoError with errno.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "core/util/io_env.h"
#include "core/util/io_error.h"

namespace compopt {
namespace {

namespace fs = std::filesystem;

class PosixWritableFile : public WritableFile {
 public:
  PosixWritableFile(fs::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  size_t write_some(std::span<const std::byte> data) override {
    while (true) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) throw IoError("write", path_, errno);
    }
  }
  void sync() override {
    if (::fsync(fd_) != 0) throw IoError("sync", path_, errno);
  }
  void close() override {
    const int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) throw IoError("close", path_, errno);
  }

 private:
  fs::path path_;
  int fd_;
};

void throw_if(const std::error_code& ec, const char* action, const fs::path& path) {
  if (ec) throw IoError(action, path, ec.value());
}

class PosixEnv : public Env {
 public:
  std::unique_ptr<WritableFile> open_for_write(const fs::path& path) override {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw IoError("create", path, errno);
    return std::make_unique<PosixWritableFile>(path, fd);
  }

  std::vector<std::byte> read_file(const fs::path& path) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw IoError("read", path, errno);
    std::vector<std::byte> data;
    std::byte buffer[1 << 16];
    while (true) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n == 0) break;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int error = errno;
        ::close(fd);
        throw IoError("read", path, error);
      }
      data.insert(data.end(), buffer, buffer + n);
    }
    ::close(fd);
    return data;
  }

  void sync_dir(const fs::path& dir) override {
    const fs::path target = dir.empty() ? fs::path(".") : dir;
    const int fd = ::open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw IoError("sync directory", target, errno);
    const int rc = ::fsync(fd), error = errno;
    ::close(fd);
    if (rc != 0) throw IoError("sync directory", target, error);
  }

  void rename(const fs::path& from, const fs::path& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      throw IoError("rename " + from.string() + " to", to, errno);
    }
  }

  void remove(const fs::path& path) override {
    std::error_code ec;
    fs::remove_all(path, ec);
    throw_if(ec, "remove", path);
  }

  std::vector<std::string> list_dir(const fs::path& dir) override {
    std::error_code ec;
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    throw_if(ec, "list", dir);
    std::sort(names.begin(), names.end());
    return names;
  }

  void create_dirs(const fs::path& dir) override {
    std::error_code ec;
    fs::create_directories(dir, ec);
    throw_if(ec, "create directory", dir);
  }
};

}  // namespace

Env& default_env() {
  static PosixEnv env;
  return env;
}

}  // namespace compopt
