#pragma once
// Registers the TCP backend ("tcp": one rank per process over Boost.Asio sockets, started by
// `compopt launch`, or in-process ranks with their own loopback sockets for tests) in a
// BackendRegistry; tcp_world.h holds its entry points.
//
// tcp_options_for() maps WorldOptions to TcpOptions, shared by the backends that connect over
// TCP (tcp, hybrid, nccl): for a launched rank (ranks == 0) the environment first
// (tcp_options_from_env), then every field WorldOptions sets. It takes no settings (extras).

#include "core/comm/backend.h"
#include "real_backend/tcp/tcp_options.h"

namespace compopt::tcp {

void register_tcp_backend(BackendRegistry& registry);

// Throws InvalidArgument for any setting (extras) and, for a launched rank, a bad environment.
TcpOptions tcp_options_for(const WorldOptions& options);

}  // namespace compopt::tcp
