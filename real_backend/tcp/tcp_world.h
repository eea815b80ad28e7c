#pragma once
// Entry points of the TCP backend.
//
//   run_tcp_rank(tcp_options_from_env(), fn)   one rank per process, as started
//                                              by `compopt launch` or by hand
//   run_tcp_threads(n, gpus_per_node, fn)     n ranks as threads of this process,
//                                              each with its own sockets (tests)
//
// Both connect (rendezvous + full mesh, see rendezvous.h and mesh.h), run fn on
// the world Communicator and close with a goodbye. When fn throws, the rank
// sends an abort naming its error to every peer (they fail with PeerFailed),
// then rethrows. run_tcp_threads rethrows the root cause: the first error that
// is not a consequence of another rank's failure.

#include <cstdint>
#include <functional>
#include <memory>

#include "core/comm/communicator.h"
#include "real_backend/tcp/tcp_options.h"
#include "real_backend/tcp/tcp_transport.h"

namespace compopt::tcp {

// Rendezvous + mesh. Rank 0 reports its rendezvous port to `on_master_port`
// once it listens (useful with master_port 0). Throws InvalidArgument for bad
// options and CommError for a failed or timed-out setup.
std::unique_ptr<TcpTransport> connect_tcp(TcpOptions options,
                                          const std::function<void(uint16_t)>& on_master_port = {});

void run_tcp_rank(const TcpOptions& options, const std::function<void(Communicator&)>& fn);

// `base` supplies timeouts etc.; rank, world size, port and (if empty) token are set here.
void run_tcp_threads(int ranks, int gpus_per_node, const std::function<void(Communicator&)>& fn,
                     TcpOptions base = {});

}  // namespace compopt::tcp
