#include "sim/wire_map.h"

#include <fmt/format.h>

#include <cmath>

#include "core/util/error.h"

namespace compopt::sim {

WireMap::WireMap(double scale) : scale_(scale) {
  if (!(scale > 0) || !std::isfinite(scale)) {
    throw InvalidArgument(fmt::format("wire scale {}, expected a finite value > 0", scale));
  }
}

void WireMap::set_exact(uint64_t real_bytes, double simulated_bytes) {
  if (!(simulated_bytes >= 0) || !std::isfinite(simulated_bytes)) {
    throw InvalidArgument(
        fmt::format("wire map: {} simulated bytes for a {}-byte message, expected >= 0",
                    simulated_bytes, real_bytes));
  }
  exact_[real_bytes] = simulated_bytes;
}

double WireMap::simulated_bytes(uint64_t real_bytes) const {
  if (const auto it = exact_.find(real_bytes); it != exact_.end()) return it->second;
  return static_cast<double>(real_bytes) * scale_;
}

}  // namespace compopt::sim
