#include "real_backend/tcp/rendezvous.h"

#include <fmt/format.h>

#include <optional>

#include "core/util/error.h"
#include "real_backend/tcp/refusal_log.h"

namespace compopt::tcp {

struct Rendezvous::State {
  std::vector<RankAddress> table;
  std::vector<std::unique_ptr<tcp::socket>> sockets;  // rank 0: registered ranks
  std::vector<std::string> table_frames;              // rank 0: the table, as sent
  int registered = 1;
  int tables_sent = 0;
  std::string error;
  bool done = false;
};

namespace {

std::string peer_name(const tcp::socket& socket) {
  ErrorCode ec;
  const auto ep = socket.remote_endpoint(ec);
  return ec ? std::string("unknown peer")
            : fmt::format("{}:{}", ep.address().to_string(), ep.port());
}

// Longest host or node name a rank may register: one table entry then always fits in a
// control frame, whatever the world size.
constexpr size_t kMaxNameChars = 255;

// Empty when both names fit a table entry.
std::string name_refusal(const std::string& host, const std::string& node) {
  for (const auto& [what, name] : {std::pair{"host", &host}, std::pair{"node name", &node}}) {
    if (name->size() > kMaxNameChars) {
      return fmt::format("{} of {} characters, expected at most {}", what, name->size(),
                         kMaxNameChars);
    }
  }
  return {};
}

std::string entry_text(const std::vector<RankAddress>& table, size_t r) {
  return fmt::format("host.{0}={1}\nport.{0}={2}\nnode.{0}={3}\n", r, table[r].host, table[r].port,
                     table[r].node_name);
}

// The table as consecutive pieces, each one control frame of at most kMaxControlPayload
// bytes: {ranks, first, count} and the entries first..first+count-1.
std::vector<std::string> table_pieces(const std::vector<RankAddress>& table) {
  const auto head = [&](size_t first, size_t count) {
    return encode_fields({{"ranks", std::to_string(table.size())},
                          {"first", std::to_string(first)},
                          {"count", std::to_string(count)}});
  };
  std::vector<std::string> pieces;
  size_t first = 0;
  std::string body;
  for (size_t r = 0; r < table.size(); ++r) {
    const std::string entry = entry_text(table, r);
    if (r > first &&
        head(first, r + 1 - first).size() + body.size() + entry.size() > kMaxControlPayload) {
      pieces.push_back(head(first, r - first) + body);
      first = r;
      body.clear();
    }
    body += entry;
  }
  pieces.push_back(head(first, table.size() - first) + body);
  return pieces;
}

asio::awaitable<void> send_table(std::shared_ptr<Rendezvous::State> state, int rank) {
  try {
    tcp::socket& socket = *state->sockets[static_cast<size_t>(rank)];
    for (const std::string& frame : state->table_frames)
      co_await asio::async_write(socket, asio::buffer(frame), asio::use_awaitable);
    if (++state->tables_sent == static_cast<int>(state->table.size()) - 1) state->done = true;
  } catch (const std::exception& e) {
    state->error =
        fmt::format("rendezvous: sending the table to rank {} failed: {}", rank, e.what());
  }
}

asio::awaitable<void> serve_registration(tcp::socket socket,
                                         std::shared_ptr<Rendezvous::State> state,
                                         TcpOptions options) {
  const std::string who = peer_name(socket);
  std::string refusal;
  try {
    std::optional<Watchdog> watchdog(std::in_place, socket, 5.0);
    const ControlFrame frame = co_await read_control(socket);
    const int world = options.world_size;
    int rank = -1;
    if (frame.kind != FrameKind::kRegister) {
      refusal = fmt::format("expected a register frame, got {}", kind_name(frame.kind));
    } else if (!token_equal(field(frame.fields, "token"), options.token)) {
      refusal = "job token mismatch";
    } else if (field_int(frame.fields, "world_size", 1, 1 << 20) != world) {
      refusal = fmt::format("world size {} differs from rank 0's {}",
                            field(frame.fields, "world_size"), world);
    } else {
      rank = static_cast<int>(field_int(frame.fields, "rank", 1, world - 1));
      if (state->sockets[static_cast<size_t>(rank)])
        refusal = fmt::format("rank {} already registered", rank);
      else
        refusal = name_refusal(field(frame.fields, "host"), field(frame.fields, "node"));
    }
    if (!refusal.empty()) {
      log_refused(options, "rendezvous connection", who, refusal);
      const Fields reject{{"reason", refusal}};
      co_await write_control(socket, FrameKind::kReject, reject);
      co_return;
    }
    RankAddress address{field(frame.fields, "host"),
                        static_cast<uint16_t>(field_int(frame.fields, "port", 1, 65535)),
                        field(frame.fields, "node")};
    watchdog.reset();
    state->table[static_cast<size_t>(rank)] = address;
    state->sockets[static_cast<size_t>(rank)] = std::make_unique<tcp::socket>(std::move(socket));
    if (++state->registered == world) {
      for (const std::string& piece : table_pieces(state->table))
        state->table_frames.push_back(control_frame(FrameKind::kTable, piece));
      for (int r = 1; r < world; ++r)
        asio::co_spawn(state->sockets[1]->get_executor(), send_table(state, r), asio::detached);
    }
  } catch (const std::exception& e) {
    if (refusal.empty()) log_refused(options, "rendezvous connection", who, e.what());
  }
}

asio::awaitable<void> accept_loop(tcp::acceptor& acceptor, std::shared_ptr<Rendezvous::State> state,
                                  TcpOptions options) {
  for (;;) {
    ErrorCode ec;
    tcp::socket socket =
        co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (!acceptor.is_open() || state->done) co_return;
    if (ec) continue;
    asio::co_spawn(acceptor.get_executor(), serve_registration(std::move(socket), state, options),
                   asio::detached);
  }
}

// Stores one piece of the table, which must start at entry `next`; returns the entry after
// it. Every piece holds at least one entry, so a world of n ranks takes at most n pieces.
int read_table_piece(const ControlFrame& piece, int next, std::vector<RankAddress>& table) {
  const int world = static_cast<int>(table.size());
  if (piece.kind != FrameKind::kTable)
    throw CommError(fmt::format("got a {} frame", kind_name(piece.kind)));
  if (field_int(piece.fields, "ranks", 1, 1 << 20) != world)
    throw CommError("table of another size");
  if (field_int(piece.fields, "first", 0, world - 1) != next)
    throw CommError(fmt::format("table piece out of order, expected entry {} next", next));
  const int count = static_cast<int>(field_int(piece.fields, "count", 1, world - next));
  for (int r = next; r < next + count; ++r) {
    table[static_cast<size_t>(r)] = {
        field(piece.fields, fmt::format("host.{}", r)),
        static_cast<uint16_t>(field_int(piece.fields, fmt::format("port.{}", r), 1, 65535)),
        field(piece.fields, fmt::format("node.{}", r))};
  }
  return next + count;
}

asio::awaitable<void> register_with_master(std::shared_ptr<Rendezvous::State> state,
                                           TcpOptions options, RankAddress mine) {
  // rank 0 may not listen yet: retry; run_until enforces the deadline
  tcp::socket socket = co_await connect_with_retry(options.master_addr, options.master_port);
  try {
    const Fields registration{{"token", options.token},
                              {"rank", std::to_string(options.rank)},
                              {"world_size", std::to_string(options.world_size)},
                              {"host", mine.host},
                              {"port", std::to_string(mine.port)},
                              {"node", mine.node_name}};
    co_await write_control(socket, FrameKind::kRegister, registration);
    for (int next = 0; next < options.world_size;) {
      const ControlFrame reply = co_await read_control(socket);
      if (reply.kind == FrameKind::kReject) {
        state->error =
            fmt::format("rank 0 refused rank {}: {}", options.rank, field(reply.fields, "reason"));
        co_return;
      }
      next = read_table_piece(reply, next, state->table);
    }
    state->done = true;
  } catch (const std::exception& e) {
    state->error = fmt::format("rendezvous with rank 0 at {}:{} failed: {}", options.master_addr,
                               options.master_port, e.what());
  }
}

}  // namespace

void log_refused(const TcpOptions& options, const std::string& what, const std::string& from,
                 const std::string& why) {
  if (!options.quiet) refusal_log().refused(options.rank, what, from, why);
}

Rendezvous::Rendezvous(const TcpOptions& options)
    : options_(options), state_(std::make_shared<State>()) {
  if (options_.rank != 0 || options_.world_size == 1) return;
  acceptor_ = std::make_unique<tcp::acceptor>(io_);
  const tcp::endpoint endpoint = resolve_endpoint(io_, options_.listen_addr, options_.master_port);
  ErrorCode ec;
  acceptor_->open(endpoint.protocol(), ec);
  if (!ec) acceptor_->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_->bind(endpoint, ec);
  if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw CommError(fmt::format("rank 0 cannot listen for the rendezvous on {}:{}: {}",
                                options_.listen_addr, options_.master_port, ec.message()));
  }
}

Rendezvous::~Rendezvous() = default;

uint16_t Rendezvous::port() const { return acceptor_ ? acceptor_->local_endpoint().port() : 0; }

std::vector<RankAddress> Rendezvous::run(const RankAddress& mine,
                                         SteadyClock::time_point deadline) {
  if (const std::string why = name_refusal(mine.host, mine.node_name); !why.empty())
    throw InvalidArgument(fmt::format("tcp rank {}: {}", options_.rank, why));
  const auto n = static_cast<size_t>(options_.world_size);
  state_->table.assign(n, {});
  state_->table[static_cast<size_t>(options_.rank)] = mine;
  if (n == 1) return state_->table;
  if (options_.rank == 0) {
    state_->sockets.resize(n);
    asio::co_spawn(io_, accept_loop(*acceptor_, state_, options_), asio::detached);
  } else {
    asio::co_spawn(io_, register_with_master(state_, options_, mine), asio::detached);
  }
  run_until(
      io_, deadline, [&] { return state_->done || !state_->error.empty(); },
      [&] {
        if (options_.rank != 0) {
          return fmt::format("rank {}: rendezvous with rank 0 at {}:{} timed out after {} s",
                             options_.rank, options_.master_addr, options_.master_port,
                             options_.connect_timeout_s);
        }
        std::string missing;
        for (size_t r = 1; r < n; ++r) {
          if (!state_->sockets[r]) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        }
        return fmt::format("rank 0: rendezvous timed out after {} s; ranks not registered: {}",
                           options_.connect_timeout_s,
                           missing.empty() ? "none (table delivery stalled)" : missing);
      });
  if (!state_->error.empty()) throw CommError(state_->error);
  if (acceptor_) acceptor_->close();
  return state_->table;
}

}  // namespace compopt::tcp
