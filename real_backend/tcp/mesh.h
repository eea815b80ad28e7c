#pragma once
// Full mesh of one TCP world: rank i dials every rank j < i at the address of the
// rendezvous table and accepts one connection from every rank j > i on its data
// listener. Both ends send a peer-hello {job token, rank, world size} and check
// the other's; stray or hostile connections are refused, logged and closed
// without disturbing the mesh. Returns one connected socket descriptor per rank
// (-1 for this rank), ready for TcpTransport.

#include <vector>

#include "real_backend/tcp/handshake_io.h"
#include "real_backend/tcp/rendezvous.h"
#include "real_backend/tcp/tcp_options.h"

namespace compopt::tcp {

// `acceptor` listens on this rank's advertised address and belongs to `io`.
// Throws CommError at the deadline, naming the ranks not connected.
std::vector<int> connect_mesh(asio::io_context& io, tcp::acceptor& acceptor,
                              const TcpOptions& options, const std::vector<RankAddress>& table,
                              SteadyClock::time_point deadline);

}  // namespace compopt::tcp
