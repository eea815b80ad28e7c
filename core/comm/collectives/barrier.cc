#include "core/comm/collectives/barrier.h"

namespace compopt {

void dissemination_barrier(Communicator& comm) {
  const int n = comm.size(), r = comm.rank();
  for (int distance = 1; distance < n; distance *= 2) {
    comm.sendrecv((r + distance) % n, {}, (r - distance + n) % n, {},
                  Communicator::InternalTag::kBarrier);
  }
}

}  // namespace compopt
