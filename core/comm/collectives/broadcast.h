#pragma once
// Binomial-tree broadcast from `root`: log2(n) rounds, every rank receives once.

#include <cstddef>
#include <span>

#include "core/comm/communicator.h"

namespace compopt {

// root must be in 0..comm.size()-1 (InvalidArgument otherwise, on every rank).
void binomial_broadcast(Communicator& comm, std::span<std::byte> data, int root);

}  // namespace compopt
