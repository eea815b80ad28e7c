#pragma once
// Ring allgather: at step s rank r forwards block (r - s) to r + 1. Each rank
// sends (n-1) * |mine| bytes in n-1 messages.

#include <cstddef>
#include <span>

#include "core/comm/communicator.h"

namespace compopt {

// all.size() must equal comm.size() * mine.size() (InvalidArgument otherwise).
void ring_allgather(Communicator& comm, std::span<const std::byte> mine, std::span<std::byte> all);

}  // namespace compopt
