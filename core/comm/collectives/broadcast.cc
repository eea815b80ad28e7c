#include "core/comm/collectives/broadcast.h"

#include <fmt/format.h>

#include "core/util/error.h"

namespace compopt {

void binomial_broadcast(Communicator& comm, std::span<std::byte> data, int root) {
  const int n = comm.size();
  if (root < 0 || root >= n) {
    throw InvalidArgument(
        fmt::format("broadcast: root {} out of range, expected 0..{}", root, n - 1));
  }
  const int relative = (comm.rank() - root + n) % n;
  auto real = [&](int rel) { return (rel + root) % n; };
  int mask = 1;
  while (mask < n) {
    if (relative & mask) {
      comm.recv(real(relative - mask), Communicator::InternalTag::kBroadcast, data);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < n)
      comm.send(real(relative + mask), Communicator::InternalTag::kBroadcast, data);
  }
}

}  // namespace compopt
