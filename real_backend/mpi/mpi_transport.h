#pragma once
// Transport over MPI point-to-point (for clusters: start with mpirun as usual).
//
// Channels: every message travels as an envelope {u64 channel, u64 length}
// followed by its payload (in pieces of at most 1 GiB), all on one tag of a
// private duplicate of the communicator; MPI's non-overtaking order per (source,
// tag) keeps them paired, so the 64-bit channel needs no tag mapping and only
// tag 1 (<= the 32767 every MPI_TAG_UB allows) is used.
// Progress: while a call waits (for its send to complete or its message to
// arrive) it drains every arriving message into an inbox keyed by (source,
// channel). A rank blocked in send() therefore still receives, so sends behave
// eagerly and sendrecv() cannot deadlock. Every wait has a deadline (CommError).
// Peer failure: mpirun ends the job when a rank dies; run_mpi() calls MPI_Abort on an
// exception and runs MpiLiveness, which aborts the job when a rank stops responding.
// Threads: one rank thread calls it.

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "core/comm/transport.h"

namespace compopt::mpi {

struct MpiOptions {
  // One send or receive waiting longer fails (COMPOPT_MPI_TIMEOUT_S). Not liveness: a large
  // message on a slow network may legitimately take minutes.
  double op_timeout_s = 300.0;
  // Liveness (run_mpi, mpi_liveness.h): a heartbeat partner silent this long ends the job
  // (COMPOPT_MPI_SILENCE_S; 0 turns liveness off). Heartbeats every min(0.5 s, budget / 4).
  double silence_timeout_s = 4.0;
  // Start-up (run_mpi: MPI_Init_thread to the liveness thread running) taking longer ends the
  // rank with exit code 1 (COMPOPT_MPI_STARTUP_S; mpi_startup.h).
  double startup_timeout_s = 60.0;
  int gpus_per_node = 0;  // > 0: node = rank / gpus_per_node; 0: ranks sharing memory share a node
  // Ring collectives send blocks in pieces of this size, one piece ahead (Transport::
  // pipeline_bytes); 0 sends whole blocks. Must be equal on every rank.
  size_t pipeline_bytes = size_t{1} << 20;
};

class MpiTransport final : public Transport {
 public:
  // MPI must be initialized; `comm` is duplicated (and freed in the destructor).
  explicit MpiTransport(MPI_Comm comm = MPI_COMM_WORLD, MpiOptions options = {});
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int world_rank() const override { return rank_; }
  int world_size() const override { return size_; }
  int node_of(int world_rank) const override;

  void send(int dst, Channel channel, std::span<const std::byte> data) override;
  void recv(int src, Channel channel, std::span<std::byte> data) override;
  void sendrecv(int dst, Channel send_channel, std::span<const std::byte> send_data, int src,
                Channel recv_channel, std::span<std::byte> recv_data) override;

  size_t pipeline_bytes() const override { return options_.pipeline_bytes; }
  double now() const override { return MPI_Wtime() - start_; }
  void advance(double /*seconds*/) override {}

 private:
  struct Envelope {
    uint64_t channel = 0;
    uint64_t length = 0;
  };
  struct PendingSend {
    Envelope envelope;
    std::vector<MPI_Request> requests;
  };
  void start_send(int dst, Channel channel, std::span<const std::byte> data, PendingSend& pending);
  void finish_send(int dst, PendingSend& pending, double deadline);
  // Receives every message that has arrived; returns whether it received one.
  bool drain();
  void receive_payload(int src, std::span<std::byte> into, double deadline);
  void take(int src, Channel channel, std::span<std::byte> data);
  void check_peer(int rank, const char* what) const;
  // Tells every peer this rank will send nothing more (the destructor).
  void say_goodbye();
  double deadline() const { return MPI_Wtime() + options_.op_timeout_s; }

  MPI_Comm comm_ = MPI_COMM_NULL;
  MpiOptions options_;
  int rank_ = 0;
  int size_ = 1;
  double start_ = 0;
  std::vector<int> nodes_;
  std::map<std::pair<int, Channel>, std::deque<std::vector<std::byte>>> inbox_;
  std::vector<bool> goodbye_;  // the peer said it sends nothing more
};

}  // namespace compopt::mpi
