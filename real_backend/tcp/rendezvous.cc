#include "real_backend/tcp/rendezvous.h"

#include <fmt/format.h>

#include <optional>

#include "core/util/error.h"

namespace compopt::tcp {

struct Rendezvous::State {
  std::vector<RankAddress> table;
  std::vector<std::unique_ptr<tcp::socket>> sockets;  // rank 0: registered ranks
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

Fields table_fields(const std::vector<RankAddress>& table) {
  Fields f{{"ranks", std::to_string(table.size())}};
  for (size_t r = 0; r < table.size(); ++r) {
    f[fmt::format("host.{}", r)] = table[r].host;
    f[fmt::format("port.{}", r)] = std::to_string(table[r].port);
    f[fmt::format("node.{}", r)] = table[r].node_name;
  }
  return f;
}

asio::awaitable<void> send_table(std::shared_ptr<Rendezvous::State> state, int rank) {
  try {
    const Fields table = table_fields(state->table);
    co_await write_control(*state->sockets[static_cast<size_t>(rank)], FrameKind::kTable, table);
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
    }
    if (!refusal.empty()) {
      log_refused(options, fmt::format("rendezvous connection from {}", who), refusal);
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
      for (int r = 1; r < world; ++r)
        asio::co_spawn(state->sockets[1]->get_executor(), send_table(state, r), asio::detached);
    }
  } catch (const std::exception& e) {
    if (refusal.empty())
      log_refused(options, fmt::format("rendezvous connection from {}", who), e.what());
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
    const ControlFrame reply = co_await read_control(socket);
    if (reply.kind == FrameKind::kReject) {
      state->error =
          fmt::format("rank 0 refused rank {}: {}", options.rank, field(reply.fields, "reason"));
      co_return;
    }
    if (reply.kind != FrameKind::kTable)
      throw CommError(fmt::format("got a {} frame", kind_name(reply.kind)));
    if (field_int(reply.fields, "ranks", 1, 1 << 20) != options.world_size)
      throw CommError("table of another size");
    for (int r = 0; r < options.world_size; ++r) {
      state->table[static_cast<size_t>(r)] = {
          field(reply.fields, fmt::format("host.{}", r)),
          static_cast<uint16_t>(field_int(reply.fields, fmt::format("port.{}", r), 1, 65535)),
          field(reply.fields, fmt::format("node.{}", r))};
    }
    state->done = true;
  } catch (const std::exception& e) {
    state->error = fmt::format("rendezvous with rank 0 at {}:{} failed: {}", options.master_addr,
                               options.master_port, e.what());
  }
}

}  // namespace

void log_refused(const TcpOptions& options, const std::string& where, const std::string& why) {
  if (!options.quiet)
    fmt::print(stderr, "compopt tcp rank {}: refused {}: {}\n", options.rank, where, why);
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
