#pragma once
// Which ranks exchange liveness heartbeats (TCP mesh, MPI liveness thread).
//
// Every pair in worlds of up to kAllPairsHeartbeatRanks ranks. Beyond, rank r and
// rank p are partners when their distance on the ring, (p - r) mod n or its
// complement, is a power of two: about 2 log2(n) partners per rank (16 at 256
// ranks) instead of n - 1, so idle heartbeat traffic grows as n log n, not n^2.
// The relation is symmetric (each side watches the other) and every rank has at
// least its two ring neighbours, so a hung rank is seen by its partners, which
// end the job naming it.

namespace compopt {

inline constexpr int kAllPairsHeartbeatRanks = 16;

constexpr bool heartbeat_partners(int rank, int peer, int world) {
  if (rank == peer) return false;
  if (world <= kAllPairsHeartbeatRanks) return true;
  const int d = ((peer - rank) % world + world) % world;
  const auto power_of_two = [](int x) { return x > 0 && (x & (x - 1)) == 0; };
  return power_of_two(d) || power_of_two(world - d);
}

}  // namespace compopt
