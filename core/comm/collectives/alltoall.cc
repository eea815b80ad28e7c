#include "core/comm/collectives/alltoall.h"

#include <fmt/format.h>

#include <cstring>

#include "core/util/error.h"

namespace compopt {

void pairwise_alltoall(Communicator& comm, std::span<const std::byte> send_data,
                       std::span<std::byte> recv_data) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<size_t>(n);
  if (send_data.size() != recv_data.size() || send_data.size() % un != 0) {
    throw InvalidArgument(fmt::format(
        "alltoall: send holds {} bytes and receive {}, expected equal sizes divisible by {} ranks",
        send_data.size(), recv_data.size(), n));
  }
  const size_t block = send_data.size() / un;
  auto offset = [&](int b) { return static_cast<size_t>(b) * block; };
  if (block > 0) std::memcpy(recv_data.data() + offset(r), send_data.data() + offset(r), block);
  for (int k = 1; k < n; ++k) {
    const int dst = (r + k) % n, src = (r - k + n) % n;
    comm.sendrecv(dst, send_data.subspan(offset(dst), block), src,
                  recv_data.subspan(offset(src), block), Communicator::InternalTag::kAlltoall);
  }
}

}  // namespace compopt
