#include "real_backend/tcp/inbox.h"

#include <fmt/format.h>

#include <cstring>

namespace compopt::tcp {

Inbox::Inbox(int rank, int size)
    : rank_(rank),
      goodbye_(static_cast<size_t>(size), false),
      closed_(static_cast<size_t>(size), false) {}

void Inbox::deliver(int src, Channel channel, Message message) {
  std::lock_guard lock(mutex_);
  queues_[{src, channel}].push_back(std::move(message));
  wakeup_.notify_all();
}

void Inbox::mark_goodbye(int src) {
  std::lock_guard lock(mutex_);
  goodbye_[static_cast<size_t>(src)] = true;
  wakeup_.notify_all();
}

void Inbox::mark_closed(int src) {
  std::lock_guard lock(mutex_);
  closed_[static_cast<size_t>(src)] = true;
  wakeup_.notify_all();
}

void Inbox::fail(const std::string& what, bool peer) {
  std::lock_guard lock(mutex_);
  if (failure_.empty()) {
    failure_ = what;
    failure_from_peer_ = peer;
  }
  wakeup_.notify_all();
}

void Inbox::complete(WriteDone& write, const std::string& error) {
  std::lock_guard lock(mutex_);
  write.done = true;
  write.error = error;
  wakeup_.notify_all();
}

void Inbox::throw_failure_locked() const {
  if (failure_from_peer_) throw PeerFailed(failure_);
  throw CommError(failure_);
}

void Inbox::take(int src, Channel channel, std::span<std::byte> data, Deadline deadline,
                 double timeout_s) {
  std::unique_lock lock(mutex_);
  auto& queue = queues_[{src, channel}];
  const auto s = static_cast<size_t>(src);
  wakeup_.wait_until(lock, deadline, [&] {
    return !queue.empty() || !failure_.empty() || goodbye_[s] || closed_[s];
  });
  if (!queue.empty()) {
    Message message = std::move(queue.front());
    queue.pop_front();
    if (message.size != data.size()) {
      throw CommError(
          fmt::format("rank {} received {} bytes from rank {} (channel {:#x}), expected {}: ranks "
                      "called a collective with different sizes",
                      rank_, message.size, src, channel, data.size()));
    }
    if (message.size > 0) std::memcpy(data.data(), message.data.get(), message.size);
    return;
  }
  if (!failure_.empty()) throw_failure_locked();
  if (goodbye_[s] || closed_[s]) {
    throw CommError(
        fmt::format("rank {}: waiting for a message from rank {}, which already returned "
                    "(mismatched collectives?)",
                    rank_, src));
  }
  throw CommError(fmt::format("rank {}: no message from rank {} after {} s (channel {:#x})", rank_,
                              src, timeout_s, channel));
}

bool Inbox::wait_written(WriteDone& write, Deadline deadline) {
  std::unique_lock lock(mutex_);
  wakeup_.wait_until(lock, deadline, [&] { return write.done || !failure_.empty(); });
  if (write.done && write.error.empty()) return true;
  if (!failure_.empty()) throw_failure_locked();
  if (write.done) throw CommError(write.error);
  return false;
}

void Inbox::wait_quiet(std::vector<WriteDone>& writes, Deadline deadline) {
  std::unique_lock lock(mutex_);
  wakeup_.wait_until(lock, deadline, [&] {
    if (!failure_.empty()) return true;
    for (const WriteDone& w : writes) {
      if (!w.done) return false;
    }
    for (size_t p = 0; p < goodbye_.size(); ++p) {
      if (static_cast<int>(p) != rank_ && !goodbye_[p] && !closed_[p]) return false;
    }
    return true;
  });
}

void Inbox::wait_done(WriteDone& write) {
  std::unique_lock lock(mutex_);
  wakeup_.wait(lock, [&] { return write.done; });
}

bool Inbox::wait_done_until(WriteDone& write, Deadline deadline) {
  std::unique_lock lock(mutex_);
  return wakeup_.wait_until(lock, deadline, [&] { return write.done; });
}

bool Inbox::failed() const {
  std::lock_guard lock(mutex_);
  return !failure_.empty();
}

bool Inbox::goodbye(int src) const {
  std::lock_guard lock(mutex_);
  return goodbye_[static_cast<size_t>(src)];
}

void Inbox::throw_if_failed() const {
  std::lock_guard lock(mutex_);
  if (!failure_.empty()) throw_failure_locked();
}

}  // namespace compopt::tcp
