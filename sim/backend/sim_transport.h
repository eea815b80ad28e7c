#pragma once
// SimTransport: one rank's endpoint in a SimGrid simulation (one s4u actor per
// rank). Messages go to a mailbox per destination rank with the real payload
// attached and the simulated size from the rank's WireMap; sends are
// asynchronous, so rings never deadlock. Each send first costs the sender its
// transport's per-message (and, at a new peer, per-peer) software time, and its
// flow runs at most at the transport's per-flow cap (sim/flow_costs.h). now() is the simulated
// clock since the run started; advance(s) sleeps the actor for s simulated seconds. Obtain one with
// SimTransport::of(comm) from inside run_sim().

#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/transport.h"
#include "sim/backend/sim_shared.h"
#include "sim/wire_map.h"

namespace compopt::sim {

class SimTransport final : public Transport {
 public:
  SimTransport(SimShared& shared, int rank, WireMap wire);

  // The SimTransport under `comm`; throws InvalidArgument when comm does not run on Sim.
  static SimTransport& of(Communicator& comm);

  int world_rank() const override { return rank_; }
  int world_size() const override { return shared_.size(); }
  int node_of(int world_rank) const override;

  void send(int dst, Channel channel, std::span<const std::byte> data) override;
  void recv(int src, Channel channel, std::span<std::byte> data) override;
  void sendrecv(int dst, Channel send_channel, std::span<const std::byte> send_data, int src,
                Channel recv_channel, std::span<std::byte> recv_data) override;

  double now() const override;
  // Throws InvalidArgument for negative or non-finite seconds.
  void advance(double seconds) override;
  // Blocks until every rank called sync(); takes no simulated time, sends nothing.
  void sync();

  // Wire charging from now on (scaled proxy); see WireMap.
  void set_wire_map(WireMap wire) { wire_ = std::move(wire); }
  const WireMap& wire_map() const { return wire_; }
  // Simulated bytes this rank sent (after the wire map), all and across nodes.
  double wire_bytes_sent() const { return wire_bytes_sent_; }
  double wire_inter_node_bytes_sent() const { return wire_inter_node_bytes_; }
  void reset_wire_counters() { wire_bytes_sent_ = wire_inter_node_bytes_ = 0; }

  // Called by the run once this rank's function returned: wakes ranks blocked on it.
  void mark_returned();

 private:
  // Allocates the message and accounts for it; returns it with its simulated size.
  std::pair<SimMessage*, uint64_t> post(int dst, Channel channel, std::span<const std::byte> data);
  std::unique_ptr<SimMessage> take(int src, Channel channel);
  // Sleeps the sender's software time for one message to dst and returns the comm to
  // start, capped at the transport's per-flow rate.
  simgrid::s4u::CommPtr start_comm(int dst, SimMessage* message, uint64_t bytes);

  SimShared& shared_;
  int rank_;
  WireMap wire_;
  double wire_bytes_sent_ = 0, wire_inter_node_bytes_ = 0;
  std::vector<char> peer_seen_;  // per rank: this rank already sent to it
  // Messages that arrived before their recv was called, by (src, channel).
  std::map<std::pair<int, Channel>, std::deque<std::unique_ptr<SimMessage>>> early_;
};

}  // namespace compopt::sim
