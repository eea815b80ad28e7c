#pragma once
// WireMap: how many bytes the simulated wire charges for a real message. The
// scaled proxy (docs/simulator.md "Scaled proxy") runs the real collectives on a
// small tensor and charges the wire for the modeled one: every message is
// scaled by `scale`, except sizes given an exact figure with set_exact (e.g.
// the 4-byte scales of the compressed allreduce, which do not grow with the
// model). Value type; not thread-safe for writes.

#include <cstdint>
#include <unordered_map>

namespace compopt::sim {

class WireMap {
 public:
  // Throws InvalidArgument unless scale > 0.
  WireMap() : WireMap(1.0) {}
  explicit WireMap(double scale);

  // Messages of exactly real_bytes are charged simulated_bytes instead of
  // real_bytes x scale.
  void set_exact(uint64_t real_bytes, double simulated_bytes);
  double simulated_bytes(uint64_t real_bytes) const;
  double scale() const { return scale_; }

 private:
  double scale_;
  std::unordered_map<uint64_t, double> exact_;
};

}  // namespace compopt::sim
