#include "sim/flow_rounds.h"

#include <fmt/format.h>

#include <cmath>
#include <simgrid/s4u.hpp>
#include <string_view>
#include <vector>

#include "core/comm/phase_log.h"
#include "sim/sim_transport.h"

namespace compopt::sim {

namespace {

namespace sg4 = simgrid::s4u;

// The mailbox of the messages from `src` to `dst`: one per pair, so that a GPU's incoming
// flows are all posted at once and share its links from the start.
sg4::Mailbox* flow_mailbox(int src, int dst) {
  return sg4::Mailbox::by_name(fmt::format("compopt-flow-{}-{}", src, dst));
}

// One round with all ranks starting together: every flow of this rank is posted at once
// (sends and receives), and the round ends when the last flow of any rank arrived.
RoundTiming simulate_flow_round(SimTransport& transport, const FlowRound& round) {
  static char token = 0;
  const int rank = transport.world_rank();
  RoundTiming out;
  std::vector<sg4::CommPtr> comms;
  std::vector<char*> received;
  transport.sync();
  const double start = transport.now();
  for (const Flow& f : round.flows) {
    if (f.src != rank) continue;
    comms.push_back(flow_mailbox(f.src, f.dst)->put_async(&token, std::llround(f.bytes)));
    out.bytes_sent += f.bytes;
    if (transport.node_of(f.dst) != transport.node_of(rank)) out.inter_node_bytes += f.bytes;
  }
  for (const Flow& f : round.flows) {
    if (f.dst == rank) received.push_back(nullptr);
  }
  size_t next = 0;
  for (const Flow& f : round.flows) {
    if (f.dst == rank) comms.push_back(flow_mailbox(f.src, f.dst)->get_async(&received[next++]));
  }
  sg4::Comm::wait_all(comms);
  transport.sync();
  // All ranks started together and the sync costs nothing: now is the last arrival.
  out.seconds = transport.now() - start;
  return out;
}

}  // namespace

RoundTiming simulate_flow_rounds(Communicator& comm, const std::vector<FlowRound>& rounds) {
  SimTransport& transport = SimTransport::of(comm);
  PhaseLog* log = comm.phase_log();
  const double origin = transport.now();
  RoundTiming out, one;
  const FlowRound* previous = nullptr;
  for (const FlowRound& round : rounds) {
    if (previous == nullptr || previous->flows != round.flows) {
      one = simulate_flow_round(transport, round);
    }
    const double start = origin + out.seconds;
    out.bytes_sent += round.repeat * one.bytes_sent;
    out.inter_node_bytes += round.repeat * one.inter_node_bytes;
    out.seconds += round.repeat * one.seconds;
    if (log != nullptr && previous != nullptr && std::string_view(previous->phase) == round.phase) {
      log->extend_last(origin + out.seconds);
    } else if (log != nullptr) {
      log->add({.name = round.phase, .start_s = start, .end_s = origin + out.seconds});
    }
    previous = &round;
  }
  return out;
}

}  // namespace compopt::sim
