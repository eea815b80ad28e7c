#pragma once
// Pairwise-exchange all-to-all: in round k (1..n-1) rank r sends block r+k to
// rank r+k and receives block r-k from rank r-k. Each rank sends (n-1) blocks.

#include <cstddef>
#include <span>

#include "core/comm/communicator.h"

namespace compopt {

// send_data.size() == recv_data.size() and both divisible by comm.size().
void pairwise_alltoall(Communicator& comm, std::span<const std::byte> send_data,
                       std::span<std::byte> recv_data);

}  // namespace compopt
