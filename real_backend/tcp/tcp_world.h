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

#include <sys/resource.h>

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

// Descriptors one in-process rank holds besides its mesh sockets, at most: its data listener,
// its rendezvous socket, rank 0's rendezvous listener and registered sockets (counted per
// rank), and the epoll, eventfd and timerfd of its three io_contexts.
constexpr rlim_t kFilesPerInProcessRank = 16;

// Open files `ranks` threads of one process hold once their mesh is up, with `open_now`
// files open before: both ends of every one of the ranks (ranks - 1) / 2 connections, plus
// kFilesPerInProcessRank per rank and 64 to spare.
rlim_t in_process_files_needed(int ranks, rlim_t open_now);

// Raises the soft RLIMIT_NOFILE to in_process_files_needed when the hard limit allows;
// otherwise throws InvalidArgument naming the need and both limits (before any rank starts).
void ensure_in_process_file_limit(int ranks);

// `base` supplies timeouts etc.; rank, world size, port and (if empty) token are set here.
// Calls ensure_in_process_file_limit(ranks) first.
void run_tcp_threads(int ranks, int gpus_per_node, const std::function<void(Communicator&)>& fn,
                     TcpOptions base = {});

}  // namespace compopt::tcp
