#pragma once
// Wire maps of the scaled proxy (docs/simulator.md "Scaled proxy"): the real
// collective runs on `proxy` elements per rank and the wire is charged as if it
// ran on `modeled` elements. Bulk messages scale by modeled / proxy; the 4-byte
// scales of sign-compressed messages keep their real size, so compressed traffic
// is charged exactly compressor.wire_bytes(modeled chunk) per message.

#include <cstddef>
#include <string_view>

#include "core/optim/stage_spec.h"
#include "sim/wire_map.h"

namespace compopt::sim {

enum class CommScheme { kRing, kCompressedFlat, kCompressedHierarchical };

// The scheme that times an optimizer stage's communication pattern (core/optim/stage_spec.h).
CommScheme scheme_of(CommPattern pattern);

// Proxy length for n ranks: a multiple of 8n with at least 8 payload bytes per
// compressed chunk (so chunk sizes never collide with the 4-byte scales).
size_t proxy_length(int ranks, size_t minimum = 16384);

// Wire map for `scheme` over nodes x gpus_per_node ranks with `compressor`
// ("sign" or "binary"; ignored for kRing). proxy must come from proxy_length.
WireMap proxy_wire_map(CommScheme scheme, std::string_view compressor, size_t proxy, double modeled,
                       int nodes, int gpus_per_node);

}  // namespace compopt::sim
