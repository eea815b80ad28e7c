#pragma once
// run_sim: runs fn(Communicator&) on every rank of a simulated cluster, one
// SimGrid actor per rank, and returns when all ranks returned. Rank r sits on
// node r / gpus_per_node, GPU r % gpus_per_node. The clock starts at 0;
// communication costs what the platform's network model says and local work
// costs what the ranks charge with comm.advance(seconds).
//
// If a rank throws, the others are stopped and the first exception is rethrown.
// A run in which ranks wait forever raises CommError naming them. SimGrid 3.32
// allows one engine at a time per process: run_sim calls are serialized, and a
// call from inside a running simulation throws InvalidArgument.

#include <functional>

#include "core/comm/communicator.h"
#include "net_models/cluster_spec.h"
#include "net_models/platform_builder.h"
#include "sim/wire_map.h"

namespace compopt::sim {

struct SimRunOptions {
  net::ClusterSpec cluster;
  int ranks = 0;                // 0: every GPU of the cluster
  int gpus_per_node = 0;        // 0: cluster.gpus_per_node
  WireMap wire = WireMap(1.0);  // initial wire charging of every rank (SimTransport::set_wire_map)
};

struct SimRunResult {
  double makespan_s = 0;  // simulated time at which the last rank returned
};

// Throws InvalidArgument for a bad cluster or a placement that does not fit it.
SimRunResult run_sim(const SimRunOptions& options, const std::function<void(Communicator&)>& fn);

// The engine under run_sim: builds `cluster`'s platform in a fresh engine, calls
// `setup(hosts)` to create the actors, runs the simulation to its end and calls
// `finish` (if any) while the engine still exists, to release what setup made on it.
// Serialized like run_sim; throws InvalidArgument when called from inside a running
// simulation.
void run_engine(const net::ClusterSpec& cluster,
                const std::function<void(const net::PlatformHosts&)>& setup,
                const std::function<void()>& finish = {});

// Convenience: run_sim({cluster, ranks, gpus_per_node}, fn).makespan_s.
double run_sim(const net::ClusterSpec& cluster, int ranks, int gpus_per_node,
               const std::function<void(Communicator&)>& fn);

}  // namespace compopt::sim
