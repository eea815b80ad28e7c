#pragma once
// The phases of the collective of one optimizer stage on every simulated rank:
// what simulate_step (step_simulator.h) reports when asked, for traces of a step
// (step_trace.h). A phase is what the collective code marks (core/comm/phase_log.h):
// "reduce-scatter" and "all-gather" of the ring; "all-to-all", "all-gather scales"
// and "all-gather" of the compressed allreduce; "intra-node reduce-scatter",
// "inter-node compressed allreduce" (holding the compressed phases one level down)
// and "intra-node all-gather" of the hierarchical scheme. Collectives timed by
// symmetry (round_timing.h) give every rank the same phases.

#include <vector>

#include "core/comm/phase_log.h"

namespace compopt::sim {

struct StagePhases {
  // spans[r]: rank r's phases, in seconds from the start of its collective. Without
  // overlap the collective of the whole gradient; with overlap that of one bucket.
  std::vector<std::vector<PhaseSpan>> spans;
  int buckets = 0;      // with overlap: the number of buckets; 0 without
  double bucket_s = 0;  // with overlap: one bucket's collective (slowest rank)
};

}  // namespace compopt::sim
