#include "sim/ring_pipeline.h"

#include <algorithm>
#include <vector>

#include "sim/backend/sim_transport.h"
#include "sim/backend/sim_world.h"
#include "sim/collapsed_rounds.h"
#include "sim/round_timing.h"

namespace compopt::sim {

namespace {

// One 1-byte round across nodes (same local GPU, next node) and one inside nodes.
std::vector<ShiftRound> probe_rounds(const net::ClusterSpec& cluster) {
  std::vector<ShiftRound> rounds;
  if (cluster.nodes > 1)
    rounds.push_back({.scope = RoundScope::kInterNode, .shift = 1, .real_bytes = 1});
  if (cluster.gpus_per_node > 1)
    rounds.push_back({.scope = RoundScope::kIntraNode, .shift = 1, .real_bytes = 1});
  return rounds;
}

RingHopLatency from_seconds(const net::ClusterSpec& cluster, const std::vector<double>& seconds) {
  RingHopLatency hop;
  size_t k = 0;
  if (cluster.nodes > 1) hop.inter_node_s = seconds[k++];
  if (cluster.gpus_per_node > 1) hop.intra_node_s = seconds[k];
  return hop;
}

}  // namespace

RingHopLatency ring_hop_latency(const net::ClusterSpec& full) {
  const std::vector<ShiftRound> rounds = probe_rounds(full);
  if (rounds.empty()) return {};
  // A hop to the next node crosses the same links on two nodes as on many (a million-GPU
  // platform would take minutes to build); a platform file is probed as it is.
  const net::ClusterSpec cluster = full.platform_file.empty() ? mirror_cluster(full) : full;
  std::vector<double> seconds(rounds.size());
  if (collapsible(cluster)) {
    std::vector<RoundJob> jobs;
    jobs.reserve(rounds.size());
    for (const ShiftRound& r : rounds) jobs.push_back({{r}, WireMap(1.0)});
    const std::vector<CollapsedTiming> timed = simulate_collapsed(cluster, jobs);
    for (size_t k = 0; k < timed.size(); ++k) seconds[k] = timed[k].seconds;
    return from_seconds(full, seconds);
  }
  run_sim({.cluster = cluster}, [&](Communicator& comm) {
    SimTransport::of(comm).set_wire_map(WireMap(1.0));
    for (size_t k = 0; k < rounds.size(); ++k) {
      const double s = simulate_rounds(comm, {rounds[k]}).seconds;
      if (comm.rank() == 0) seconds[k] = s;  // the slowest rank's, the same on every rank
    }
  });
  return from_seconds(full, seconds);
}

double ring_pass_over_charge_s(const net::ClusterSpec& cluster, const RingHopLatency& hop) {
  const int n = cluster.gpus(), nodes = cluster.nodes;
  if (nodes < 2 || n == nodes) return 0;
  return (n - nodes) * std::max(0.0, hop.inter_node_s - hop.intra_node_s);
}

double pipelined_ring_s(double lock_step_s, const net::ClusterSpec& cluster,
                        const RingHopLatency& hop) {
  return std::max(0.0, lock_step_s - 2.0 * ring_pass_over_charge_s(cluster, hop));
}

}  // namespace compopt::sim
