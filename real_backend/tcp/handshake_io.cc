#include "real_backend/tcp/handshake_io.h"

#include <fmt/format.h>

#include "core/util/error.h"

namespace compopt::tcp {

std::string encode_fields(const Fields& fields) {
  std::string out;
  for (const auto& [key, value] : fields) out += key + "=" + value + "\n";
  return out;
}

Fields parse_fields(const std::string& text) {
  Fields fields;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    if (end == std::string::npos) throw CommError("malformed control frame: unterminated line");
    const std::string line = text.substr(pos, end - pos);
    const size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0)
      throw CommError("malformed control frame: line without key=value");
    fields[line.substr(0, eq)] = line.substr(eq + 1);
    pos = end + 1;
  }
  return fields;
}

const std::string& field(const Fields& fields, const std::string& key) {
  const auto it = fields.find(key);
  if (it == fields.end()) throw CommError(fmt::format("control frame lacks field '{}'", key));
  return it->second;
}

long field_int(const Fields& fields, const std::string& key, long lo, long hi) {
  const std::string& text = field(fields, key);
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < lo || value > hi) {
    throw CommError(fmt::format("control frame field {}='{}', expected an integer in {}..{}", key,
                                text, lo, hi));
  }
  return value;
}

asio::awaitable<ControlFrame> read_control(tcp::socket& socket) {
  HeaderBytes header_bytes;
  ErrorCode ec;
  co_await asio::async_read(socket, asio::buffer(header_bytes),
                            asio::redirect_error(asio::use_awaitable, ec));
  if (ec) throw CommError(fmt::format("connection closed during handshake ({})", ec.message()));
  const FrameHeader header = decode_header(header_bytes, 0);
  if (header.kind == FrameKind::kData) throw CommError("data frame during handshake");
  std::string payload(header.length, '\0');
  co_await asio::async_read(socket, asio::buffer(payload),
                            asio::redirect_error(asio::use_awaitable, ec));
  if (ec) throw CommError(fmt::format("connection closed during handshake ({})", ec.message()));
  if (crc32_of(std::as_bytes(std::span(payload.data(), payload.size()))) != header.payload_crc) {
    throw CommError("handshake frame checksum mismatch");
  }
  co_return ControlFrame{header.kind, parse_fields(payload)};
}

asio::awaitable<void> write_control(tcp::socket& socket, FrameKind kind, const Fields& fields) {
  const std::string frame = control_frame(kind, encode_fields(fields));
  co_await asio::async_write(socket, asio::buffer(frame), asio::use_awaitable);
}

bool token_equal(const std::string& a, const std::string& b) {
  if (a.size() != b.size() || b.empty()) return false;  // token lengths are not secret
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

Watchdog::Watchdog(tcp::socket& socket, double seconds) : timer_(socket.get_executor()) {
  timer_.expires_after(
      std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds)));
  timer_.async_wait([&socket](const ErrorCode& ec) {
    if (!ec) {
      ErrorCode ignored;
      socket.close(ignored);
    }
  });
}

Watchdog::~Watchdog() {
  try {
    timer_.cancel();
  } catch (const boost::system::system_error&) {
    // Nothing to undo: a timer that cannot be cancelled is being torn down with its io_context.
  }
}

void run_until(asio::io_context& io, SteadyClock::time_point deadline,
               const std::function<bool()>& done, const std::function<std::string()>& describe) {
  io.restart();
  while (!done()) {
    const auto now = SteadyClock::now();
    if (now >= deadline) throw CommError(describe());
    io.run_one_for(std::min<SteadyClock::duration>(deadline - now, std::chrono::milliseconds(100)));
    if (io.stopped()) io.restart();
  }
}

tcp::endpoint resolve_endpoint(asio::io_context& io, const std::string& host, uint16_t port) {
  ErrorCode ec;
  const auto address = asio::ip::make_address(host, ec);
  if (!ec) return {address, port};
  tcp::resolver resolver(io);
  const auto results = resolver.resolve(host, std::to_string(port), ec);
  if (ec || results.empty()) {
    throw CommError(
        fmt::format("cannot resolve host '{}': {}", host, ec ? ec.message() : "no address"));
  }
  return *results.begin();
}

asio::awaitable<tcp::socket> connect_with_retry(const std::string& host, uint16_t port) {
  auto executor = co_await asio::this_coro::executor;
  tcp::socket socket(executor);
  for (;;) {
    ErrorCode ec;
    tcp::resolver resolver(executor);
    auto endpoints = co_await resolver.async_resolve(host, std::to_string(port),
                                                     asio::redirect_error(asio::use_awaitable, ec));
    if (!ec) {
      co_await asio::async_connect(socket, endpoints,
                                   asio::redirect_error(asio::use_awaitable, ec));
    }
    if (!ec) co_return socket;
    asio::steady_timer pause(executor, std::chrono::milliseconds(50));
    co_await pause.async_wait(asio::use_awaitable);
  }
}

}  // namespace compopt::tcp
