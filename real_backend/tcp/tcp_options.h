#pragma once
// Options of one TCP rank, torch.distributed style: rank 0 listens for the
// rendezvous at master_addr:master_port, every rank registers the address of its
// own data listener, rank 0 sends back the table, then the ranks build a full mesh
// of persistent connections (rank i connects to every j < i).
//
// tcp_options_from_env() reads RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
// COMPOPT_JOB_TOKEN, and optionally COMPOPT_LISTEN_ADDR, COMPOPT_ADVERTISE_ADDR,
// COMPOPT_NODE_NAME, COMPOPT_TCP_TIMEOUT_S, COMPOPT_TCP_PIPELINE_BYTES. Every value can also be set
// in code. Under torchrun (TORCHELASTIC_RUN_ID set), whose agent keeps its own store on
// MASTER_PORT, rank 0 listens on MASTER_PORT + 1 instead (unless TORCHELASTIC_USE_AGENT_STORE
// is False: then torchrun's store is elsewhere), and without COMPOPT_JOB_TOKEN the token is
// derived from the run id (core/util/job_token.h).

#include <cstdint>
#include <string>

#include "core/util/job_token.h"

namespace compopt::tcp {

struct TcpOptions {
  int rank = -1;
  int world_size = 0;
  std::string master_addr = "127.0.0.1";
  uint16_t master_port = 0;               // rank 0 may pass 0 to pick a free port (in-process use)
  std::string listen_addr = "127.0.0.1";  // data listener (and rank 0's rendezvous listener)
  std::string advertise_addr;             // address peers dial; default: listen_addr
  std::string token;                      // shared job secret; required, at least 16 characters
  std::string node_name;                  // ranks with equal names share a node; default: host name
  int gpus_per_node = 0;                  // > 0 overrides node_name: node = rank / gpus_per_node
  double connect_timeout_s = 60.0;        // rendezvous + mesh, as a whole
  double op_timeout_s = 300.0;            // one send/recv waiting longer fails
  // Liveness: the I/O thread sends a heartbeat every interval on idle connections; a peer
  // silent (no byte, not even a heartbeat) this long fails the rank. 4 s + one interval to
  // notice + `compopt launch`'s 3 s grace keeps a hung rank's job under 10 s end to end.
  double peer_silence_timeout_s = 4.0;
  double heartbeat_interval_s = 0.5;
  double linger_s = 10.0;  // close(): wait this long for every peer's goodbye
  uint64_t max_message_bytes = uint64_t{16} << 30;  // larger data frames are refused as corrupt
  // Ring collectives send blocks in pieces of this size, one piece ahead (Transport::
  // pipeline_bytes); 0 sends whole blocks. Must be equal on every rank.
  uint64_t pipeline_bytes = uint64_t{1} << 20;
  bool quiet = false;  // do not log refused connections to stderr
};

// Fills rank, world size, master address/port, token and overrides from the
// environment on top of `defaults`. Throws InvalidArgument for unparsable values.
TcpOptions tcp_options_from_env(TcpOptions defaults = {});

// Throws InvalidArgument naming the first bad field.
void validate(const TcpOptions& options);

}  // namespace compopt::tcp
