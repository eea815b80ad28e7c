#pragma once
// The collectives of one training step, simulated: each stage's whole vector and, for a stage
// bucketed behind backward, one bucket's, on a proxy of the cluster in as few SimGrid engines as
// the platform allows, then charged as the software runs them (the uncompressed allreduce by
// NCCL's algorithm, allreduce_algorithm.h; the compressed schemes as the implementation's
// framework issues their collectives, framework_collectives.h). step_simulator.h composes the
// step from what they return.

#include <string>
#include <vector>

#include "core/comm/phase_log.h"
#include "sim/charged_stage.h"
#include "sim/step_simulator.h"

namespace compopt::sim {

// One collective as charged: its time (the slowest rank's), a GPU's traffic and its share of
// the traffic across nodes, every rank's phases when requested, and what was charged.
struct CommMeasure {
  double seconds = 0, bytes_per_gpu = 0, inter_node_bytes = 0;
  std::vector<std::vector<PhaseSpan>> spans;  // per rank, when requested
  std::string algorithm;  // the allreduce algorithm charged (allreduce_algorithm.h) or the scheme
};

// One collective of `modeled` elements on every GPU of the cluster, and whether to record
// every rank's phases.
struct CollectiveRequest {
  const ChargedStage* stage = nullptr;
  double modeled = 0;
  bool spans = false;
};

// Every requested collective of a step, simulated on a proxy, in as few engines as the
// platform allows: its simulated duration (slowest rank), modeled traffic and, if
// requested, every rank's phases from the start of its collective. Patterns given as
// flows (ring channels, tree) are posted by one actor on the whole platform
// (flow_rounds.h); rounds timed by symmetry are collapsed onto a two-node mirror
// (collapsed_rounds.h) where the cluster allows it, else every rank runs the rounds
// (simulate_rounds); the rest run in full on every rank. Compute is not simulated here:
// every rank does the same work, so simulate_step composes it analytically.
std::vector<CommMeasure> simulate_collectives(const StepConfig& config,
                                              const std::vector<CollectiveRequest>& requests);

}  // namespace compopt::sim
