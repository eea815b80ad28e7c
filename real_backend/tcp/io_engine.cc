#include "real_backend/tcp/io_engine.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>

#include "real_backend/heartbeat_partners.h"

namespace compopt::tcp {
namespace {

constexpr size_t kReadPiece = size_t{1} << 20;

tcp protocol_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return address.ss_family == AF_INET6 ? tcp::v6() : tcp::v4();
}

}  // namespace

IoEngine::IoEngine(const TcpOptions& options, std::vector<int> fds, Inbox& inbox)
    : options_(options),
      inbox_(inbox),
      work_(io_.get_executor()),
      timer_(io_),
      links_(fds.size()),
      start_(Clock::now()) {
  for (size_t p = 0; p < fds.size(); ++p) {
    if (fds[p] < 0) continue;
    Link& link = links_[p];
    link.socket = std::make_unique<tcp::socket>(io_, protocol_of(fds[p]), fds[p]);
    link.open = true;
    link.last_heard = start_;
    link.watched = heartbeat_partners(options_.rank, static_cast<int>(p), options_.world_size);
    asio::co_spawn(io_, read_loop(static_cast<int>(p)), asio::detached);
  }
  schedule_heartbeat(0.0);  // peers hear this rank at once, not one interval later
}

IoEngine::~IoEngine() = default;

double IoEngine::seconds_since_start() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void IoEngine::run() { io_.run(); }

void IoEngine::queue(int dst, const HeaderBytes& header, std::span<const std::byte> payload,
                     std::string owned, WriteDone* done) {
  asio::post(io_, [this, dst, header, payload, owned = std::move(owned), done]() mutable {
    Link& link = links_[static_cast<size_t>(dst)];
    if (!link.open) {
      if (done) {
        inbox_.complete(
            *done, fmt::format("rank {}: connection to rank {} is closed{}", options_.rank, dst,
                               link.goodbye ? " (it already returned)" : ""));
      }
      return;
    }
    link.queue.push_back({header, payload, std::move(owned), done});
    write_next(dst);
  });
}

void IoEngine::queue_control(int dst, FrameKind kind, std::string payload, WriteDone* done) {
  if (kind == FrameKind::kGoodbye || kind == FrameKind::kAbort) {
    asio::post(io_, [this, dst] { links_[static_cast<size_t>(dst)].final_queued = true; });
  }
  const auto bytes = std::as_bytes(std::span(payload.data(), payload.size()));
  const HeaderBytes header = encode_header(
      {.kind = kind, .channel = 0, .length = payload.size(), .payload_crc = crc32_of(bytes)});
  queue(dst, header, {}, std::move(payload), done);
}

void IoEngine::write_next(int peer) {
  Link& link = links_[static_cast<size_t>(peer)];
  if (link.writing || link.queue.empty() || !link.open) return;
  link.writing = true;
  const OutFrame& f = link.queue.front();
  const std::array<asio::const_buffer, 2> buffers{
      asio::buffer(f.header),
      f.owned.empty() ? asio::buffer(f.payload.data(), f.payload.size()) : asio::buffer(f.owned)};
  asio::async_write(*link.socket, buffers, [this, peer](const ErrorCode& ec, size_t) {
    Link& l = links_[static_cast<size_t>(peer)];
    OutFrame frame = std::move(l.queue.front());
    l.queue.pop_front();
    l.writing = false;
    if (ec) {
      on_write_error(peer, ec, frame.done);
      return;
    }
    if (frame.done) inbox_.complete(*frame.done, "");
    write_next(peer);
  });
}

void IoEngine::on_write_error(int peer, const ErrorCode& ec, WriteDone* done) {
  Link& link = links_[static_cast<size_t>(peer)];
  const std::string what =
      fmt::format("rank {}: lost connection to rank {} while sending ({}){}", options_.rank, peer,
                  ec.message(), link.goodbye ? ": it already returned" : ": it died or was killed");
  if (stopping_ || !link.open || link.goodbye) {
    if (done) inbox_.complete(*done, what);
    do_close_link(peer, what);
    return;
  }
  // The peer may have sent an abort (with its reason) just before closing: let the
  // reader find it; the write completes when the link closes, at most 1 s later.
  link.broken_write = done;
  auto timer = std::make_shared<asio::steady_timer>(io_, std::chrono::seconds(1));
  timer->async_wait([this, peer, what, timer](const ErrorCode&) {
    if (links_[static_cast<size_t>(peer)].open) link_failed(peer, what, true);
  });
}

asio::awaitable<void> IoEngine::read_loop(int peer) {
  Link& link = links_[static_cast<size_t>(peer)];
  const int me = options_.rank;
  for (;;) {
    const std::optional<FrameHeader> h = co_await read_header(peer);
    if (!h) co_return;
    if (h->kind == FrameKind::kHeartbeat) continue;
    if (h->kind == FrameKind::kGoodbye) {
      link.goodbye = true;
      inbox_.mark_goodbye(peer);
      continue;
    }
    if (h->kind != FrameKind::kData && h->kind != FrameKind::kAbort) {
      link_failed(
          peer,
          fmt::format("rank {}: unexpected {} frame from rank {}", me, kind_name(h->kind), peer),
          false);
      co_return;
    }
    std::optional<Message> message = co_await read_payload(peer, *h);
    if (!message) co_return;
    if (h->kind == FrameKind::kAbort) {
      const std::string reason(reinterpret_cast<const char*>(message->data.get()), message->size);
      link_failed(peer, fmt::format("rank {}: peer rank {} failed: {}", me, peer, reason), true);
      co_return;
    }
    inbox_.deliver(peer, h->channel, std::move(*message));
  }
}

asio::awaitable<std::optional<FrameHeader>> IoEngine::read_header(int peer) {
  Link& link = links_[static_cast<size_t>(peer)];
  HeaderBytes header_bytes;
  ErrorCode ec;
  const size_t got = co_await asio::async_read(*link.socket, asio::buffer(header_bytes),
                                               asio::redirect_error(asio::use_awaitable, ec));
  if (stopping_ || !link.open) co_return std::nullopt;
  if (ec) {
    header_read_failed(peer, ec, got);
    co_return std::nullopt;
  }
  link.last_heard = Clock::now();
  link.heard = true;
  FrameHeader h;
  try {
    h = decode_header(header_bytes, options_.max_message_bytes);
  } catch (const CommError& e) {
    link_failed(
        peer, fmt::format("rank {}: corrupt frame from rank {}: {}", options_.rank, peer, e.what()),
        false);
    co_return std::nullopt;
  }
  co_return h;
}

void IoEngine::header_read_failed(int peer, const ErrorCode& ec, size_t got) {
  const int me = options_.rank;
  if (links_[static_cast<size_t>(peer)].goodbye) {
    do_close_link(peer, "closed after goodbye");
  } else if (got == 0) {
    link_failed(peer,
                fmt::format("rank {}: lost connection to rank {} ({}) without a goodbye: rank {} "
                            "died or was killed",
                            me, peer, ec.message(), peer),
                true);
  } else {
    link_failed(peer,
                fmt::format("rank {}: truncated frame from rank {}: connection closed after {} of "
                            "{} header bytes",
                            me, peer, got, kHeaderBytes),
                true);
  }
}

asio::awaitable<std::optional<Message>> IoEngine::read_payload(int peer, const FrameHeader& h) {
  Link& link = links_[static_cast<size_t>(peer)];
  const int me = options_.rank;
  Message message{std::unique_ptr<std::byte[]>(new std::byte[h.length]), h.length};
  uint32_t crc = 0;
  size_t offset = 0;
  while (offset < h.length) {
    const size_t want = std::min<size_t>(kReadPiece, h.length - offset);
    ErrorCode ec;
    // Whatever arrived, not a whole piece: on a slow link every byte is a sign of life.
    const size_t n =
        co_await link.socket->async_read_some(asio::buffer(message.data.get() + offset, want),
                                              asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_ || !link.open) co_return std::nullopt;
    if (ec) {
      link_failed(
          peer,
          fmt::format("rank {}: truncated frame from rank {}: connection closed after {} of {} "
                      "payload bytes ({}); rank {} died or was killed",
                      me, peer, offset + n, h.length, ec.message(), peer),
          true);
      co_return std::nullopt;
    }
    crc = crc32_of(std::span(message.data.get() + offset, n), crc);
    offset += n;
    link.last_heard = Clock::now();
  }
  if (crc != h.payload_crc) {
    link_failed(
        peer,
        fmt::format("rank {}: corrupt frame from rank {}: payload checksum {:#010x}, header says "
                    "{:#010x} ({} bytes, channel {:#x})",
                    me, peer, crc, h.payload_crc, h.length, h.channel),
        false);
    co_return std::nullopt;
  }
  co_return message;
}

void IoEngine::link_failed(int peer, const std::string& what, bool peer_fault) {
  if (stopping_) return;
  inbox_.fail(what, peer_fault);
  do_close_link(peer, what);
}

void IoEngine::close_link(int peer) {
  asio::post(io_, [this, peer] { do_close_link(peer, "closed by this rank"); });
}

void IoEngine::do_close_link(int peer, const std::string& why) {
  Link& link = links_[static_cast<size_t>(peer)];
  if (!link.open) return;
  link.open = false;
  ErrorCode ignored;
  link.socket->shutdown(tcp::socket::shutdown_both, ignored);
  link.socket->close(ignored);
  // The frame in flight completes in its handler; the others never start.
  const size_t first_unstarted = link.writing ? 1 : 0;
  while (link.queue.size() > first_unstarted) {
    if (link.queue.back().done) {
      inbox_.complete(
          *link.queue.back().done,
          fmt::format("rank {}: connection to rank {} closed: {}", options_.rank, peer, why));
    }
    link.queue.pop_back();
  }
  if (link.broken_write != nullptr) {
    inbox_.complete(*link.broken_write, fmt::format("rank {}: connection to rank {} closed: {}",
                                                    options_.rank, peer, why));
    link.broken_write = nullptr;
  }
  inbox_.mark_closed(peer);
}

void IoEngine::schedule_heartbeat(double after_s) {
  timer_.expires_after(
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(after_s)));
  timer_.async_wait([this](const ErrorCode& ec) {
    if (ec || stopping_) return;
    check_links();
    schedule_heartbeat(options_.heartbeat_interval_s);
  });
}

void IoEngine::check_links() {
  const auto now = Clock::now();
  for (size_t p = 0; p < links_.size(); ++p) {
    Link& link = links_[p];
    if (!link.open || !link.watched) continue;
    const double silent = std::chrono::duration<double>(now - link.last_heard).count();
    // Until a peer's first frame, it may still be finishing its own mesh setup.
    const double budget =
        link.heard ? options_.peer_silence_timeout_s
                   : std::max(options_.peer_silence_timeout_s, options_.connect_timeout_s);
    if (!link.goodbye && silent > budget) {
      link_failed(static_cast<int>(p),
                  fmt::format("rank {}: rank {} stopped responding (nothing heard for {:.1f} s, "
                              "not even a heartbeat): it hung, or the network failed",
                              options_.rank, p, silent),
                  true);
      continue;
    }
    if (!link.writing && link.queue.empty() && !link.final_queued) {
      link.queue.push_back({encode_header({.kind = FrameKind::kHeartbeat}), {}, {}, nullptr});
      write_next(static_cast<int>(p));
    }
  }
}

void IoEngine::stop() {
  asio::post(io_, [this] {
    stopping_ = true;
    timer_.cancel();
    for (size_t p = 0; p < links_.size(); ++p) do_close_link(static_cast<int>(p), "rank shut down");
    work_.reset();
  });
}

}  // namespace compopt::tcp
