#pragma once
// State shared by the ranks of one simulation (sim_world.cc creates it, every
// SimTransport points to it). SimGrid runs all actors in one OS thread, one at
// a time, so no locking is needed.

#include <simgrid/forward.h>

#include <cstddef>
#include <cstdint>
#include <simgrid/s4u/Barrier.hpp>
#include <unordered_set>
#include <vector>

#include "core/comm/transport.h"
#include "net_models/cluster_spec.h"

namespace compopt::sim {

// One message on the wire: the real payload travels with it; the simulated
// size is given to SimGrid separately.
struct SimMessage {
  int src = -1;
  Channel channel = 0;
  std::vector<std::byte> data;
  bool peer_returned = false;  // wake-up note: `src` returned from its function
};

struct SimShared {
  std::vector<int> node_of_rank;
  const net::ClusterSpec* cluster = nullptr;    // the simulated cluster (its transports)
  std::vector<simgrid::s4u::Mailbox*> mailbox;  // one per destination rank
  std::vector<char> finished;                   // rank returned from its function
  std::vector<int> waiting_on;                  // rank it blocks on in recv, or -1
  std::vector<uint32_t> in_flight;              // [dst * n + src]: posted, not yet taken
  double start_clock = 0.0;
  simgrid::s4u::BarrierPtr sync;  // zero-cost rendezvous of all ranks (SimTransport::sync)
  // Messages of non-detached sends (sendrecv) no rank has taken yet: when a failure stops the
  // simulation first, run_sim deletes them (detached sends are deleted by SimGrid).
  std::unordered_set<SimMessage*> untaken;

  int size() const { return static_cast<int>(node_of_rank.size()); }
  uint32_t& pending(int src, int dst) {
    return in_flight[static_cast<size_t>(dst) * node_of_rank.size() + static_cast<size_t>(src)];
  }
};

}  // namespace compopt::sim
