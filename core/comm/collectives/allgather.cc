#include "core/comm/collectives/allgather.h"

#include <fmt/format.h>

#include <cstring>

#include "core/util/error.h"

namespace compopt {

void ring_allgather(Communicator& comm, std::span<const std::byte> mine, std::span<std::byte> all) {
  const int n = comm.size(), r = comm.rank();
  const size_t block = mine.size();
  if (all.size() != block * static_cast<size_t>(n)) {
    throw InvalidArgument(
        fmt::format("allgather: output holds {} bytes, expected {} ({} ranks x {} bytes)",
                    all.size(), block * static_cast<size_t>(n), n, block));
  }
  auto block_at = [&](int b) { return all.subspan(static_cast<size_t>(b) * block, block); };
  if (block > 0) std::memcpy(block_at(r).data(), mine.data(), block);
  const int next = (r + 1) % n, prev = (r + n - 1) % n;
  for (int s = 0; s < n - 1; ++s) {
    const int send_block = (r - s + n) % n, recv_block = (r - s - 1 + 2 * n) % n;
    comm.sendrecv(next, block_at(send_block), prev, block_at(recv_block),
                  Communicator::InternalTag::kAllgather);
  }
}

}  // namespace compopt
