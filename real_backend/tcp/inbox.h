#pragma once
// Receive side of a TCP rank, shared by its I/O thread (which delivers) and its
// rank thread (which takes): messages queued per (source rank, channel) in
// arrival order, per-peer goodbye / closed flags, and the rank's first failure.
// Also completion flags of writes the rank thread waits for. Thread-safe.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/comm/transport.h"
#include "core/util/error.h"

namespace compopt::tcp {

// A peer failed (aborted, died, went silent): this rank fails as a consequence.
class PeerFailed : public CommError {
 public:
  explicit PeerFailed(const std::string& what) : CommError(what) {}
};

struct Message {
  std::unique_ptr<std::byte[]> data;
  size_t size = 0;
};

// Set by the I/O thread when a queued write finished (ok or not).
struct WriteDone {
  bool done = false;
  std::string error;
};

class Inbox {
 public:
  using Deadline = std::chrono::steady_clock::time_point;
  Inbox(int rank, int size);

  void deliver(int src, Channel channel, Message message);
  void mark_goodbye(int src);
  void mark_closed(int src);
  // Records the first failure; `peer` marks failures caused by another rank.
  void fail(const std::string& what, bool peer);
  void complete(WriteDone& write, const std::string& error);

  // Copies the next message of (src, channel) into data. Throws CommError on a
  // size mismatch, failure, a peer that returned, or at the deadline.
  void take(int src, Channel channel, std::span<std::byte> data, Deadline deadline,
            double timeout_s);
  // Waits for write; throws like take(). Returns false at the deadline.
  bool wait_written(WriteDone& write, Deadline deadline);
  // Waits until every write is done and every peer said goodbye or closed, or the deadline.
  void wait_quiet(std::vector<WriteDone>& writes, Deadline deadline);
  void wait_done(WriteDone& write);
  // Waits for write regardless of failures; false at the deadline.
  bool wait_done_until(WriteDone& write, Deadline deadline);

  bool failed() const;
  bool goodbye(int src) const;
  // Throws the recorded failure (PeerFailed or CommError) if any.
  void throw_if_failed() const;

 private:
  void throw_failure_locked() const;

  const int rank_;
  mutable std::mutex mutex_;
  std::condition_variable wakeup_;
  std::map<std::pair<int, Channel>, std::deque<Message>> queues_;
  std::vector<bool> goodbye_, closed_;
  std::string failure_;
  bool failure_from_peer_ = false;
};

}  // namespace compopt::tcp
