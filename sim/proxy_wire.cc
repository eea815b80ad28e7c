#include "sim/proxy_wire.h"

#include <fmt/format.h>

#include "core/compress/compressor.h"
#include "core/util/error.h"

namespace compopt::sim {

CommScheme scheme_of(CommPattern pattern) {
  switch (pattern) {
    case CommPattern::kRing:
      return CommScheme::kRing;
    case CommPattern::kCompressedFlat:
      return CommScheme::kCompressedFlat;
    case CommPattern::kCompressedHierarchical:
      return CommScheme::kCompressedHierarchical;
    case CommPattern::kAllGather:  // the all-gather half of a ring allreduce (step_simulator.cc)
      return CommScheme::kRing;
  }
  return CommScheme::kRing;
}

size_t proxy_length(int ranks, size_t minimum) {
  const size_t quantum = 8 * static_cast<size_t>(ranks);
  const size_t wanted = std::max(minimum, 64 * static_cast<size_t>(ranks));
  return (wanted + quantum - 1) / quantum * quantum;
}

WireMap proxy_wire_map(CommScheme scheme, std::string_view compressor, size_t proxy, double modeled,
                       int nodes, int gpus_per_node) {
  const int n = nodes * gpus_per_node;
  if (proxy == 0 || proxy % (8 * static_cast<size_t>(n)) != 0) {
    throw InvalidArgument(
        fmt::format("proxy length {}: expected a positive multiple of 8 x {} ranks", proxy, n));
  }
  WireMap wire(modeled / static_cast<double>(proxy));
  if (scheme == CommScheme::kRing) return wire;
  const auto codec = make_compressor(compressor);
  // Chunks of the compressed allreduce have proxy / n elements in both schemes
  // (hierarchical: shard proxy / m over N inter-node ranks).
  const size_t real_chunk = proxy / static_cast<size_t>(n);
  const double model_chunk = modeled / n;
  const double header =
      static_cast<double>(codec->wire_bytes(real_chunk) - codec->payload_bytes(real_chunk));
  const double server_message = header + model_chunk / 8.0;
  if (header > 0) {
    wire.set_exact(static_cast<uint64_t>(header), header);  // all-gathered worker scales
    wire.set_exact(codec->wire_bytes(real_chunk), server_message);
    if (scheme == CommScheme::kCompressedHierarchical) {
      // intra-node all-gather: each rank's block is the N server messages of its shard
      wire.set_exact(static_cast<uint64_t>(nodes) * codec->wire_bytes(real_chunk),
                     nodes * server_message);
    }
  }
  return wire;
}

}  // namespace compopt::sim
