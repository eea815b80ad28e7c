#pragma once
// post_flow: the one place where the collapsed round timing (sim/collapsed_rounds.h)
// puts traffic on the simulated network: `bytes` simulated bytes from GPU host `src` to
// GPU host `dst`, started now as its own SimGrid communication, so link sharing sees
// every concurrent flow. Call from inside an actor; wait on the returned comm.

#include <simgrid/forward.h>

#include <cstdint>

namespace compopt::sim {

simgrid::s4u::CommPtr post_flow(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, uint64_t bytes);

}  // namespace compopt::sim
