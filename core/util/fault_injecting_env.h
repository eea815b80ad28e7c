#pragma once
// FaultInjectingEnv: an Env for tests that forwards to another Env and makes chosen
// operations fail like a full or broken disk: ENOSPC on write, EIO on fsync, a failed
// rename, or a short write (write_some writes only part of its data). A fault picks
// its operations by kind, by the text of their path, and optionally only the Nth
// matching one.

#include <cerrno>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/util/io_env.h"

namespace compopt {

enum class IoOp { kOpen, kWrite, kSync, kSyncDir, kRename, kRemove, kList, kCreateDir, kRead };

struct IoFault {
  IoOp op = IoOp::kWrite;
  int error = EIO;                 // the errno of the IoError thrown
  int nth = 0;                     // only the nth matching operation (from 1); 0: every one
  std::string path_contains = {};  // only operations on a path containing this ("" = any)
  bool short_write = false;        // kWrite: write at most half the data instead of failing
};

class FaultInjectingEnv : public EnvWrapper {
 public:
  explicit FaultInjectingEnv(Env& target = default_env()) : EnvWrapper(target) {}

  void inject(IoFault fault);
  void clear();
  int count(IoOp op) const;  // operations of this kind seen so far
  int fired() const;         // faults injected so far

  std::unique_ptr<WritableFile> open_for_write(const std::filesystem::path& path) override;
  std::vector<std::byte> read_file(const std::filesystem::path& path) override;
  void sync_dir(const std::filesystem::path& dir) override;
  void rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  void remove(const std::filesystem::path& path) override;
  std::vector<std::string> list_dir(const std::filesystem::path& dir) override;
  void create_dirs(const std::filesystem::path& dir) override;

  // Counts the operation; returns the fault to inject, if any (used by its files too).
  std::optional<IoFault> check(IoOp op, const std::filesystem::path& path);
  // check() and throw the fault's IoError (short writes are the caller's).
  void fail_if(IoOp op, const std::filesystem::path& path, const char* action);

 private:
  struct Armed {
    IoFault fault;
    int matched = 0;
  };
  mutable std::mutex mutex_;
  std::vector<Armed> faults_;
  std::map<IoOp, int> counts_;
  int fired_ = 0;
};

}  // namespace compopt
