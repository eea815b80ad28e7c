#pragma once
// A scenario's step timed the fast way (rounds by symmetry, collapsed or not) against the
// full simulation, where every rank runs the real collective (StepConfig::full_collectives):
// comm time within `relative` of the full one, traffic within 1e-9. Rounds charge each
// round's per-message cost before its flows start; the real flat all-to-all posts its next
// message while the last one is still on the wire, so with a per-message transport cost
// (tcp) the two may differ by up to one cost per round (n - 1 rounds, per bucket with
// overlap); rounds never charge less than the full simulation. Without one they agree.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/scenario.h"
#include "sim/step_simulator.h"

namespace compopt::sim {

inline void expect_matches_full_simulation(const Scenario& s, double relative) {
  const StepConfig fast = resolve_scenario(s);
  StepConfig full = fast;
  full.full_collectives = true;
  const auto a = simulate_step(fast), b = simulate_step(full);
  ASSERT_EQ(a.size(), b.size());
  const double alpha = fast.cluster.inter_node_transport.message_overhead_s;
  const double buckets = s.overlap == OverlapMode::kOn ? std::max(1, s.buckets) : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    // "compressed-flat", or e.g. "compressed-flat (every 10 steps)" for a stage charged a share
    // of its collective per step (the slack of the whole collective bounds that share's).
    const double slack = a[i].algorithm.starts_with("compressed-flat")
                             ? (fast.cluster.gpus() - 1) * alpha * buckets
                             : 0.0;
    const std::string what = s.cluster + " " + s.optimizer + " " + a[i].stage + " " +
                             std::to_string(s.gpus) + " GPUs, " + std::to_string(s.gpus_per_node) +
                             " per node, overlap " + overlap_mode_name(s.overlap);
    EXPECT_GT(b[i].comm_s, 0) << what;
    EXPECT_NEAR(a[i].comm_s, b[i].comm_s, relative * b[i].comm_s + slack) << what;
    EXPECT_LE(b[i].comm_s, a[i].comm_s * (1 + relative)) << what << ": rounds never undercharge";
    EXPECT_NEAR(a[i].bytes_per_gpu, b[i].bytes_per_gpu, 1e-9 * b[i].bytes_per_gpu) << what;
    EXPECT_NEAR(a[i].inter_node_bytes, b[i].inter_node_bytes, 1e-9 * b[i].inter_node_bytes) << what;
  }
}

}  // namespace compopt::sim
