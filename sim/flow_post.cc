#include "sim/flow_post.h"

#include <simgrid/s4u/Comm.hpp>

namespace compopt::sim {

simgrid::s4u::CommPtr post_flow(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, uint64_t bytes) {
  return simgrid::s4u::Comm::sendto_async(src, dst, bytes);
}

}  // namespace compopt::sim
