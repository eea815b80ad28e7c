#pragma once
// Dissemination barrier: ceil(log2 n) rounds of empty messages to rank r + 2^k.

#include "core/comm/communicator.h"

namespace compopt {

void dissemination_barrier(Communicator& comm);

}  // namespace compopt
