#pragma once
// Rendezvous of a TCP world. Rank 0 listens at master_addr:master_port; every
// other rank connects (retrying until the deadline), registers {job token, rank,
// world size, data listener address, node name}; when all ranks registered,
// rank 0 sends every rank the full table and closes the rendezvous. The table goes
// out in pieces of at most one control frame (4 KiB) each, so no frame limit ties
// the world size; host and node names are capped at 255 characters so one entry
// always fits a piece.
// Connections with a wrong token, a bad frame, a duplicate or out-of-range rank
// are answered with a reject frame (when possible), closed and logged; they do
// not stop or alter the rendezvous. A rejected rank gets CommError with the reason.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "real_backend/tcp/handshake_io.h"
#include "real_backend/tcp/tcp_options.h"

namespace compopt::tcp {

struct RankAddress {
  std::string host;
  uint16_t port = 0;
  std::string node_name;
};

class Rendezvous {
 public:
  // Rank 0 binds its rendezvous listener here (port 0 picks a free one).
  explicit Rendezvous(const TcpOptions& options);
  ~Rendezvous();

  // Rank 0's rendezvous port (0 on other ranks).
  uint16_t port() const;

  // Exchanges addresses; returns one entry per rank. Throws CommError at the
  // deadline (naming the ranks still missing) or when rank 0 rejects this rank,
  // InvalidArgument when `mine` has a host or node name over 255 characters.
  std::vector<RankAddress> run(const RankAddress& mine, SteadyClock::time_point deadline);

  struct State;

 private:
  TcpOptions options_;
  asio::io_context io_;
  std::unique_ptr<tcp::acceptor> acceptor_;
  std::shared_ptr<State> state_;
};

// Logs a refused connection through refusal_log() (collapsed repeats) unless options.quiet.
void log_refused(const TcpOptions& options, const std::string& what, const std::string& from,
                 const std::string& why);

}  // namespace compopt::tcp
