#pragma once
// Transport of one TCP rank over a full mesh of persistent, authenticated
// connections (built by connect_tcp in tcp_world.h). A dedicated I/O thread
// reads every connection continuously into the Inbox and writes queued frames,
// so send() only waits for its bytes to reach the kernel, never for the
// receiver's recv(): sendrecv() cannot deadlock, whatever the message size.
//
// Data frames carry a CRC32 of the payload, checked before delivery: a corrupt
// or truncated frame fails the rank with CommError naming the peer; no corrupt
// byte reaches the caller. Idle connections carry heartbeats; a peer that
// closes without a goodbye, aborts, or stays silent past the silence timeout
// fails every later (and pending) call with PeerFailed naming it.
// Threads: one rank thread calls the Transport methods; close()/abort() from it.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/transport.h"
#include "real_backend/tcp/inbox.h"
#include "real_backend/tcp/tcp_options.h"

namespace compopt::tcp {

class TcpTransport final : public Transport {
 public:
  // `fds[r]` is the connected socket to rank r (-1 for this rank); `nodes[r]` its node.
  TcpTransport(const TcpOptions& options, std::vector<int> fds, std::vector<int> nodes);
  // Closes (or aborts when unwinding an exception) if neither was called.
  ~TcpTransport() override;

  int world_rank() const override { return options_.rank; }
  int world_size() const override { return options_.world_size; }
  int node_of(int world_rank) const override;

  void send(int dst, Channel channel, std::span<const std::byte> data) override;
  void recv(int src, Channel channel, std::span<std::byte> data) override;
  void sendrecv(int dst, Channel send_channel, std::span<const std::byte> send_data, int src,
                Channel recv_channel, std::span<std::byte> recv_data) override;

  size_t pipeline_bytes() const override { return options_.pipeline_bytes; }
  double now() const override;
  void advance(double /*seconds*/) override {}

  // Normal end: sends a goodbye after all queued frames, waits up to linger_s for
  // every peer's goodbye, then closes the connections.
  void close();
  // Failure: tells every peer `reason` (they fail with PeerFailed naming this
  // rank), then closes. Never throws.
  void abort(const std::string& reason);

  // Throws the failure the I/O thread recorded, if any (PeerFailed naming a peer that
  // died, aborted or stopped responding). For ranks that wait outside this transport,
  // like NCCL kernels bootstrapped over it: the mesh's heartbeats keep running meanwhile.
  void throw_if_failed() const { inbox_.throw_if_failed(); }

  class Io;  // the I/O thread's state (tcp_transport.cc)

 private:
  void start_write(int dst, Channel channel, std::span<const std::byte> data, WriteDone& done);
  void finish_write(int dst, WriteDone& done);
  void release_write(int dst, WriteDone& done);
  void check_peer(int rank, const char* what) const;
  void shutdown_io();

  TcpOptions options_;
  std::vector<int> nodes_;
  Inbox inbox_;
  std::unique_ptr<Io> io_;
  std::thread io_thread_;
  bool closed_ = false;
};

}  // namespace compopt::tcp
