#include "real_backend/tcp/tcp_transport.h"

#include <fmt/format.h>

#include <cstring>
#include <deque>
#include <exception>

#include "real_backend/tcp/asio.h"
#include "real_backend/tcp/frame.h"
#include "real_backend/tcp/io_engine.h"

namespace compopt::tcp {

using Clock = std::chrono::steady_clock;

namespace {

// How long a rank that failed lets a frame in flight finish (so the connection
// stays usable for its abort frame) before cutting the connection.
constexpr double kDrainOnFailureS = 2.0;

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

class TcpTransport::Io : public IoEngine {
 public:
  using IoEngine::IoEngine;
};

TcpTransport::TcpTransport(const TcpOptions& options, std::vector<int> fds, std::vector<int> nodes)
    : options_(options),
      nodes_(std::move(nodes)),
      inbox_(options.rank, options.world_size),
      io_(std::make_unique<Io>(options, std::move(fds), inbox_)) {
  io_thread_ = std::thread([this] { io_->run(); });
}

TcpTransport::~TcpTransport() {
  if (closed_) return;
  if (std::uncaught_exceptions() > 0) {
    abort(fmt::format("rank {} left its transport while unwinding an exception", options_.rank));
  } else {
    try {
      close();
    } catch (...) {
      shutdown_io();
    }
  }
}

int TcpTransport::node_of(int world_rank) const {
  check_peer(world_rank, "node_of");
  return nodes_[static_cast<size_t>(world_rank)];
}

void TcpTransport::check_peer(int rank, const char* what) const {
  if (rank < 0 || rank >= options_.world_size) {
    throw InvalidArgument(fmt::format("tcp {}: rank {} out of range, expected 0..{}", what, rank,
                                      options_.world_size - 1));
  }
}

double TcpTransport::now() const { return io_->seconds_since_start(); }

void TcpTransport::start_write(int dst, Channel channel, std::span<const std::byte> data,
                               WriteDone& done) {
  inbox_.throw_if_failed();
  if (dst == options_.rank) {
    Message m{std::unique_ptr<std::byte[]>(new std::byte[data.size()]), data.size()};
    if (!data.empty()) std::memcpy(m.data.get(), data.data(), data.size());
    inbox_.deliver(dst, channel, std::move(m));
    inbox_.complete(done, "");
    return;
  }
  if (inbox_.goodbye(dst)) {
    throw CommError(
        fmt::format("rank {}: sending to rank {}, which already returned (mismatched collectives?)",
                    options_.rank, dst));
  }
  const HeaderBytes header = encode_header({.kind = FrameKind::kData,
                                            .channel = channel,
                                            .length = data.size(),
                                            .payload_crc = crc32_of(data)});
  io_->queue(dst, header, data, {}, &done);
}

void TcpTransport::release_write(int dst, WriteDone& done) {
  // The I/O thread may still read the caller's buffer: let the frame finish (a
  // cut frame would make the peer blame this rank), else cut the connection.
  if (inbox_.wait_done_until(done, after(kDrainOnFailureS))) return;
  io_->close_link(dst);
  inbox_.wait_done(done);
}

void TcpTransport::finish_write(int dst, WriteDone& done) {
  bool ok = false;
  try {
    ok = inbox_.wait_written(done, after(options_.op_timeout_s));
  } catch (...) {
    release_write(dst, done);
    throw;
  }
  if (!ok) {
    io_->close_link(dst);
    inbox_.wait_done(done);
    const std::string what = fmt::format("rank {}: sending to rank {} did not finish within {} s",
                                         options_.rank, dst, options_.op_timeout_s);
    inbox_.fail(what, false);
    throw CommError(what);
  }
}

void TcpTransport::send(int dst, Channel channel, std::span<const std::byte> data) {
  check_peer(dst, "send");
  WriteDone done;
  start_write(dst, channel, data, done);
  finish_write(dst, done);
}

void TcpTransport::recv(int src, Channel channel, std::span<std::byte> data) {
  check_peer(src, "recv");
  inbox_.take(src, channel, data, after(options_.op_timeout_s), options_.op_timeout_s);
}

void TcpTransport::sendrecv(int dst, Channel send_channel, std::span<const std::byte> send_data,
                            int src, Channel recv_channel, std::span<std::byte> recv_data) {
  check_peer(dst, "sendrecv");
  check_peer(src, "sendrecv");
  WriteDone done;
  start_write(dst, send_channel, send_data, done);
  try {
    inbox_.take(src, recv_channel, recv_data, after(options_.op_timeout_s), options_.op_timeout_s);
  } catch (...) {
    release_write(dst, done);
    throw;
  }
  finish_write(dst, done);
}

void TcpTransport::close() {
  if (closed_) return;
  if (!inbox_.failed()) {
    std::vector<WriteDone> goodbyes(static_cast<size_t>(options_.world_size));
    for (int p = 0; p < options_.world_size; ++p) {
      if (p == options_.rank) {
        goodbyes[static_cast<size_t>(p)].done = true;
      } else {
        io_->queue_control(p, FrameKind::kGoodbye, "", &goodbyes[static_cast<size_t>(p)]);
      }
    }
    inbox_.wait_quiet(goodbyes, after(options_.linger_s));
    shutdown_io();  // completes every queued write before it returns
  } else {
    shutdown_io();
  }
}

void TcpTransport::abort(const std::string& reason) {
  if (closed_) return;
  // Declared outside the try: the I/O thread completes every entry before shutdown_io() returns.
  std::vector<WriteDone> aborts(static_cast<size_t>(options_.world_size));
  try {
    for (int p = 0; p < options_.world_size; ++p) {
      if (p == options_.rank) {
        aborts[static_cast<size_t>(p)].done = true;
      } else {
        io_->queue_control(p, FrameKind::kAbort, reason.substr(0, 2000),
                           &aborts[static_cast<size_t>(p)]);
      }
    }
    const auto deadline = after(kDrainOnFailureS);
    for (WriteDone& w : aborts) inbox_.wait_done_until(w, deadline);
  } catch (...) {  // best effort: peers also notice the closed connection
  }
  shutdown_io();
}

void TcpTransport::shutdown_io() {
  if (closed_) return;
  closed_ = true;
  io_->stop();
  if (io_thread_.joinable()) io_thread_.join();
}

}  // namespace compopt::tcp
