#include "core/util/fault_injecting_env.h"

#include <algorithm>

#include "core/util/io_error.h"

namespace compopt {
namespace {

namespace fs = std::filesystem;

class FaultyFile : public WritableFile {
 public:
  FaultyFile(FaultInjectingEnv& env, fs::path path, std::unique_ptr<WritableFile> file)
      : env_(env), path_(std::move(path)), file_(std::move(file)) {}

  size_t write_some(std::span<const std::byte> data) override {
    if (const auto f = env_.check(IoOp::kWrite, path_)) {
      if (!f->short_write) throw IoError("write", path_, f->error);
      data = data.first(std::max<size_t>(data.size() / 2, std::min<size_t>(data.size(), 1)));
    }
    return file_->write_some(data);
  }
  void sync() override {
    env_.fail_if(IoOp::kSync, path_, "sync");
    file_->sync();
  }
  void close() override { file_->close(); }

 private:
  FaultInjectingEnv& env_;
  fs::path path_;
  std::unique_ptr<WritableFile> file_;
};

}  // namespace

void FaultInjectingEnv::inject(IoFault fault) {
  std::lock_guard lock(mutex_);
  faults_.push_back({std::move(fault), 0});
}

void FaultInjectingEnv::clear() {
  std::lock_guard lock(mutex_);
  faults_.clear();
}

int FaultInjectingEnv::count(IoOp op) const {
  std::lock_guard lock(mutex_);
  const auto it = counts_.find(op);
  return it == counts_.end() ? 0 : it->second;
}

int FaultInjectingEnv::fired() const {
  std::lock_guard lock(mutex_);
  return fired_;
}

std::optional<IoFault> FaultInjectingEnv::check(IoOp op, const fs::path& path) {
  std::lock_guard lock(mutex_);
  ++counts_[op];
  for (Armed& a : faults_) {
    if (a.fault.op != op || path.string().find(a.fault.path_contains) == std::string::npos) {
      continue;
    }
    ++a.matched;
    if (a.fault.nth == 0 || a.fault.nth == a.matched) {
      ++fired_;
      return a.fault;
    }
  }
  return std::nullopt;
}

void FaultInjectingEnv::fail_if(IoOp op, const fs::path& path, const char* action) {
  if (const auto f = check(op, path)) throw IoError(action, path, f->error);
}

std::unique_ptr<WritableFile> FaultInjectingEnv::open_for_write(const fs::path& path) {
  fail_if(IoOp::kOpen, path, "create");
  return std::make_unique<FaultyFile>(*this, path, target().open_for_write(path));
}

std::vector<std::byte> FaultInjectingEnv::read_file(const fs::path& path) {
  fail_if(IoOp::kRead, path, "read");
  return target().read_file(path);
}

void FaultInjectingEnv::sync_dir(const fs::path& dir) {
  fail_if(IoOp::kSyncDir, dir, "sync directory");
  target().sync_dir(dir);
}

void FaultInjectingEnv::rename(const fs::path& from, const fs::path& to) {
  if (const auto f = check(IoOp::kRename, from.string() + " -> " + to.string())) {
    throw IoError("rename " + from.string() + " to", to, f->error);
  }
  target().rename(from, to);
}

void FaultInjectingEnv::remove(const fs::path& path) {
  fail_if(IoOp::kRemove, path, "remove");
  target().remove(path);
}

std::vector<std::string> FaultInjectingEnv::list_dir(const fs::path& dir) {
  fail_if(IoOp::kList, dir, "list");
  return target().list_dir(dir);
}

void FaultInjectingEnv::create_dirs(const fs::path& dir) {
  fail_if(IoOp::kCreateDir, dir, "create directory");
  target().create_dirs(dir);
}

}  // namespace compopt
