#include "real_backend/tcp/mesh.h"

#include <fmt/format.h>

#include <memory>
#include <optional>

#include "core/util/error.h"

namespace compopt::tcp {
namespace {

struct MeshState {
  std::vector<std::unique_ptr<tcp::socket>> links;
  int connected = 0;
  std::string error;
};

Fields hello(const TcpOptions& o) {
  return {{"token", o.token},
          {"rank", std::to_string(o.rank)},
          {"world_size", std::to_string(o.world_size)}};
}

// Empty when `frame` is a valid hello of this job from a rank in lo..hi.
std::string check_hello(const ControlFrame& frame, const TcpOptions& o, int lo, int hi, int* rank) {
  if (frame.kind == FrameKind::kReject) return "refused: " + field(frame.fields, "reason");
  if (frame.kind != FrameKind::kPeerHello)
    return fmt::format("expected a peer-hello frame, got {}", kind_name(frame.kind));
  if (!token_equal(field(frame.fields, "token"), o.token)) return "job token mismatch";
  if (field_int(frame.fields, "world_size", 1, 1 << 20) != o.world_size)
    return "world size mismatch";
  *rank = static_cast<int>(field_int(frame.fields, "rank", 0, o.world_size - 1));
  if (*rank < lo || *rank > hi)
    return fmt::format("rank {} outside the expected {}..{}", *rank, lo, hi);
  return {};
}

asio::awaitable<void> serve_peer(tcp::socket socket, std::shared_ptr<MeshState> state,
                                 TcpOptions o) {
  ErrorCode ec;
  const auto remote = socket.remote_endpoint(ec);
  const std::string who =
      ec ? "unknown peer" : fmt::format("{}:{}", remote.address().to_string(), remote.port());
  try {
    std::optional<Watchdog> watchdog(std::in_place, socket, 5.0);
    int rank = -1;
    const ControlFrame frame = co_await read_control(socket);
    std::string refusal = check_hello(frame, o, o.rank + 1, o.world_size - 1, &rank);
    if (refusal.empty() && state->links[static_cast<size_t>(rank)])
      refusal = fmt::format("rank {} already connected", rank);
    if (!refusal.empty()) {
      log_refused(o, "mesh connection", who, refusal);
      const Fields reject{{"reason", refusal}};
      co_await write_control(socket, FrameKind::kReject, reject);
      co_return;
    }
    const Fields mine = hello(o);
    co_await write_control(socket, FrameKind::kPeerHello, mine);
    watchdog.reset();
    state->links[static_cast<size_t>(rank)] = std::make_unique<tcp::socket>(std::move(socket));
    ++state->connected;
  } catch (const std::exception& e) {
    log_refused(o, "mesh connection", who, e.what());
  }
}

asio::awaitable<void> accept_peers(tcp::acceptor& acceptor, std::shared_ptr<MeshState> state,
                                   TcpOptions o) {
  for (;;) {
    ErrorCode ec;
    tcp::socket socket =
        co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (!acceptor.is_open()) co_return;
    if (ec == asio::error::no_descriptors) {
      state->error =
          fmt::format("rank {}: cannot accept peers: {} (raise ulimit -n)", o.rank, ec.message());
      co_return;
    }
    if (ec) continue;
    asio::co_spawn(acceptor.get_executor(), serve_peer(std::move(socket), state, o),
                   asio::detached);
  }
}

asio::awaitable<void> dial_peer(int peer, RankAddress address, std::shared_ptr<MeshState> state,
                                TcpOptions o) {
  tcp::socket socket = co_await connect_with_retry(address.host, address.port);
  try {
    ErrorCode ec;
    socket.set_option(tcp::no_delay(true), ec);
    const Fields mine = hello(o);
    co_await write_control(socket, FrameKind::kPeerHello, mine);
    int rank = -1;
    const ControlFrame reply = co_await read_control(socket);
    const std::string refusal = check_hello(reply, o, peer, peer, &rank);
    if (!refusal.empty()) throw CommError(refusal);
    state->links[static_cast<size_t>(peer)] = std::make_unique<tcp::socket>(std::move(socket));
    ++state->connected;
  } catch (const std::exception& e) {
    state->error = fmt::format("rank {}: connecting to rank {} at {}:{} failed: {}", o.rank, peer,
                               address.host, address.port, e.what());
  }
}

}  // namespace

std::vector<int> connect_mesh(asio::io_context& io, tcp::acceptor& acceptor, const TcpOptions& o,
                              const std::vector<RankAddress>& table,
                              SteadyClock::time_point deadline) {
  const int n = o.world_size;
  auto state = std::make_shared<MeshState>();
  state->links.resize(static_cast<size_t>(n));
  std::vector<int> fds(static_cast<size_t>(n), -1);
  if (n == 1) return fds;
  if (o.rank + 1 < n) asio::co_spawn(io, accept_peers(acceptor, state, o), asio::detached);
  for (int j = 0; j < o.rank; ++j) {
    asio::co_spawn(io, dial_peer(j, table[static_cast<size_t>(j)], state, o), asio::detached);
  }
  run_until(
      io, deadline, [&] { return state->connected == n - 1 || !state->error.empty(); },
      [&] {
        std::string missing;
        for (int r = 0; r < n; ++r) {
          if (r != o.rank && !state->links[static_cast<size_t>(r)])
            missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        }
        return fmt::format(
            "rank {}: connecting the mesh timed out after {} s; no connection with ranks {}",
            o.rank, o.connect_timeout_s, missing);
      });
  if (!state->error.empty()) throw CommError(state->error);
  acceptor.close();
  for (int r = 0; r < n; ++r) {
    if (r == o.rank) continue;
    tcp::socket& s = *state->links[static_cast<size_t>(r)];
    ErrorCode ec;
    s.set_option(tcp::no_delay(true), ec);
    fds[static_cast<size_t>(r)] = s.release();
  }
  return fds;
}

}  // namespace compopt::tcp
