#pragma once
// A Transport is one rank's endpoint in a world of ranks: it moves bytes between
// world ranks on numbered channels and keeps the clock. Backends (local threads,
// SimGrid, TCP, ...) implement only this; every Communicator, collective and
// sub-communicator is built on top of it.
//
// Contract for implementations:
// - Messages on one (src, dst, channel) are delivered in order.
// - send() returns without waiting for the receiver's recv() (it buffers, or
//   keeps receiving while it waits), so no order of sends and receives that a
//   ring issues can deadlock; sendrecv() likewise, when every rank calls it at once.
// - recv() requires the message size to equal the buffer size exactly and throws
//   CommError otherwise, or when the peer failed or a timeout passed.
// - One Transport is used by one thread at a time (its rank's).

#include <cstddef>
#include <cstdint>
#include <span>

namespace compopt {

// A channel is (communicator context << 32 | tag): messages of different
// communicators never mix.
using Channel = uint64_t;

class Transport {
 public:
  virtual ~Transport() = default;

  virtual int world_rank() const = 0;
  virtual int world_size() const = 0;
  // Node (machine) that hosts a world rank; used to count inter-node traffic.
  virtual int node_of(int world_rank) const = 0;

  virtual void send(int dst, Channel channel, std::span<const std::byte> data) = 0;
  virtual void recv(int src, Channel channel, std::span<std::byte> data) = 0;
  virtual void sendrecv(int dst, Channel send_channel, std::span<const std::byte> send_data,
                        int src, Channel recv_channel, std::span<std::byte> recv_data) = 0;

  // Ring collectives cut their blocks into messages of at most this many bytes
  // and send one piece ahead of the one they receive (core/comm/collectives/
  // ring_shift.h), overlapping their per-piece work with the wire. 0: whole
  // blocks. Must be equal on every rank.
  virtual size_t pipeline_bytes() const { return 0; }

  // Seconds since the world started: wall time on real backends, simulated time in sim/.
  virtual double now() const = 0;
  // Charges `seconds` of modeled local work: no-op on real backends, advances the clock in sim/.
  virtual void advance(double seconds) = 0;
};

}  // namespace compopt
