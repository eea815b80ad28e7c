#pragma once
// Timing of collectives given as explicit flows (allreduce_algorithm.h): a round is a
// set of flows (source GPU, destination GPU, simulated bytes) that all start
// together; the round lasts until the last flow arrives, and the next round starts
// after it. Used for patterns that are not one shift per round (several ring
// channels, NCCL's double binary tree), where round_timing.h's shift rounds do not
// apply. Flows of one round between the same pair of GPUs must be merged by the
// caller (one message per pair and round). Every flow of a rank is posted at once on
// SimGrid mailboxes of its own (not through SimTransport, whose receives are one at a
// time), so a GPU's incoming flows share its links from the start. No payload is sent;
// the wire map does not apply (flows carry simulated bytes).

#include <vector>

#include "core/comm/communicator.h"
#include "sim/round_timing.h"

namespace compopt::sim {

struct Flow {
  int src = 0, dst = 0;
  double bytes = 0;  // simulated bytes on the wire
  bool operator==(const Flow&) const = default;
};

struct FlowRound {
  std::vector<Flow> flows;
  double repeat = 1;       // the round runs this many times back to back
  const char* phase = "";  // consecutive rounds may share one
};

// Called by every rank inside run_sim. A round whose flows equal the round before it
// reuses its simulated time. With a PhaseLog attached to `comm`, records one span per
// run of consecutive rounds of one phase, as simulate_rounds does.
RoundTiming simulate_flow_rounds(Communicator& comm, const std::vector<FlowRound>& rounds);

}  // namespace compopt::sim
