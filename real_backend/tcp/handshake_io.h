#pragma once
// Small pieces shared by the rendezvous and the mesh setup: control frames as
// key=value text, coroutine reads/writes of one control frame, a watchdog that
// closes a slow connection, and running an io_context until a goal or a deadline.

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "real_backend/tcp/asio.h"
#include "real_backend/tcp/frame.h"

namespace compopt::tcp {

using SteadyClock = std::chrono::steady_clock;
using Fields = std::map<std::string, std::string>;

struct ControlFrame {
  FrameKind kind;
  Fields fields;
};

std::string encode_fields(const Fields& fields);
// Throws CommError on a malformed payload.
Fields parse_fields(const std::string& text);
// The field as an integer in lo..hi; throws CommError naming it otherwise.
long field_int(const Fields& fields, const std::string& key, long lo, long hi);
const std::string& field(const Fields& fields, const std::string& key);

// Reads one control frame (header checked, payload <= kMaxControlPayload, crc checked).
asio::awaitable<ControlFrame> read_control(tcp::socket& socket);
asio::awaitable<void> write_control(tcp::socket& socket, FrameKind kind, const Fields& fields);

// Constant-time comparison of job tokens.
bool token_equal(const std::string& a, const std::string& b);

// Closes `socket` if still open after `seconds` unless cancelled (destroyed).
class Watchdog {
 public:
  Watchdog(tcp::socket& socket, double seconds);
  ~Watchdog();

 private:
  asio::steady_timer timer_;
};

// Runs io until done() or the deadline; throws CommError(describe()) at the deadline.
void run_until(asio::io_context& io, SteadyClock::time_point deadline,
               const std::function<bool()>& done, const std::function<std::string()>& describe);

// Connects to host:port, retrying every 50 ms while the peer is not listening yet.
// Never gives up by itself: the caller's run_until deadline bounds it.
asio::awaitable<tcp::socket> connect_with_retry(const std::string& host, uint16_t port);

tcp::endpoint resolve_endpoint(asio::io_context& io, const std::string& host, uint16_t port);

}  // namespace compopt::tcp
