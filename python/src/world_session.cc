#include "python/src/world_session.h"

#include "core/util/error.h"

namespace compopt::python {

WorldSession::WorldSession(const BackendEntry& backend, const WorldOptions& options) {
  thread_ = std::thread([this, &backend, options] {
    std::exception_ptr error;
    try {
      backend.run(options, [this](Communicator& comm) { serve(comm); });
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard lock(mutex_);
    error_ = error;
    finished_ = true;
    ready_ = true;
    changed_.notify_all();
  });
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return ready_; });
  if (comm_ == nullptr) {
    lock.unlock();
    thread_.join();
    std::rethrow_exception(error_);
  }
}

WorldSession::~WorldSession() {
  try {
    close();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor reports nothing
  }
}

void WorldSession::serve(Communicator& comm) {
  std::unique_lock lock(mutex_);
  comm_ = &comm;
  ready_ = true;
  changed_.notify_all();
  changed_.wait(lock, [this] { return release_; });
  comm_ = nullptr;
  if (failure_) throw CommError(*failure_);
}

Communicator& WorldSession::comm() {
  const std::lock_guard lock(mutex_);
  if (comm_ == nullptr) throw InvalidArgument("compopt world: already closed, call init() again");
  return *comm_;
}

bool WorldSession::open() const {
  const std::lock_guard lock(mutex_);
  return comm_ != nullptr;
}

void WorldSession::close(const std::optional<std::string>& failure) {
  {
    const std::lock_guard lock(mutex_);
    if (!thread_.joinable()) return;
    failure_ = failure;
    release_ = true;
    changed_.notify_all();
  }
  thread_.join();
  const std::lock_guard lock(mutex_);
  if (error_ && !failure) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace compopt::python
