#pragma once
// Registers the Sim backend ("sim": one SimGrid actor per rank on a simulated star cluster,
// sim_world.h) in a BackendRegistry. In-process only; the clock is simulated time.
//
// The cluster is a star of ceil(ranks / gpus_per_node) nodes of gpus_per_node GPUs
// (gpus_per_node 0: one node of all ranks) with net::ClusterSpec's default links, changed by
// the settings (WorldOptions::extras) link_gbps, latency_us and link_efficiency. Commands that
// simulate a named cluster preset call sim::run_sim with it directly.

#include "core/comm/backend.h"

namespace compopt::sim {

// The Sim backend's registered name, also what run.json records as the backend of the
// commands that simulate a cluster directly (profile, sweep, validate).
inline constexpr const char* kSimBackendName = "sim";

void register_sim_backend(BackendRegistry& registry);

}  // namespace compopt::sim
