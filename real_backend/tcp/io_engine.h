#pragma once
// The I/O thread of a TCP rank: one io_context driving every mesh connection.
// Each connection has a reader coroutine (header, then payload in 1 MiB pieces,
// checksum checked before delivery to the Inbox) and a FIFO of frames to write,
// one async write at a time. A timer, on this thread whatever the rank thread is
// doing, sends heartbeats on the idle connections to its heartbeat partners
// (real_backend/heartbeat_partners.h) and fails the rank when a partner stays
// silent past the silence timeout (any byte counts: a frame that is still arriving
// keeps its sender alive, however slow the link). A peer not heard from yet since
// this thread started gets connect_timeout_s instead: it may still be building its
// own mesh.
// queue*/close_link/stop may be called from any thread (they post to the I/O
// thread); run() is the I/O thread's body and returns after stop() once every
// handler finished, so every queued WriteDone is complete by then.

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "real_backend/tcp/asio.h"
#include "real_backend/tcp/frame.h"
#include "real_backend/tcp/inbox.h"
#include "real_backend/tcp/tcp_options.h"

namespace compopt::tcp {

class IoEngine {
 public:
  IoEngine(const TcpOptions& options, std::vector<int> fds, Inbox& inbox);
  ~IoEngine();

  void run();
  // `payload` must stay valid until `done` is completed.
  void queue(int dst, const HeaderBytes& header, std::span<const std::byte> payload,
             std::string owned, WriteDone* done);
  void queue_control(int dst, FrameKind kind, std::string payload, WriteDone* done);
  void close_link(int peer);
  void stop();
  double seconds_since_start() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct OutFrame {
    HeaderBytes header;
    std::span<const std::byte> payload;
    std::string owned;  // payload of control frames (used when non-empty)
    WriteDone* done = nullptr;
  };
  struct Link {
    std::unique_ptr<tcp::socket> socket;
    std::deque<OutFrame> queue;
    bool writing = false;
    bool open = false;
    bool goodbye = false;               // the peer said goodbye
    bool final_queued = false;          // this rank queued its goodbye or abort: no more heartbeats
    WriteDone* broken_write = nullptr;  // failed write, completed when the link closes
    Clock::time_point last_heard;
    bool heard = false;    // a frame arrived since the I/O thread started
    bool watched = false;  // heartbeat partners (real_backend/heartbeat_partners.h)
  };

  asio::awaitable<void> read_loop(int peer);
  // One frame's header, or nullopt once the link is closed or failed.
  asio::awaitable<std::optional<FrameHeader>> read_header(int peer);
  void header_read_failed(int peer, const ErrorCode& ec, size_t got);
  // The payload of a data or abort frame, checksum verified, or nullopt as above.
  asio::awaitable<std::optional<Message>> read_payload(int peer, const FrameHeader& h);
  void on_write_error(int peer, const ErrorCode& ec, WriteDone* done);
  void write_next(int peer);
  void do_close_link(int peer, const std::string& why);
  void link_failed(int peer, const std::string& what, bool peer_fault);
  void schedule_heartbeat(double after_s);
  // Fails links silent past their budget; queues a heartbeat on every idle one.
  void check_links();

  TcpOptions options_;
  Inbox& inbox_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  asio::steady_timer timer_;
  std::vector<Link> links_;
  bool stopping_ = false;
  Clock::time_point start_;
};

}  // namespace compopt::tcp
