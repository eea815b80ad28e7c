#pragma once
// StageSpec: what an optimizer communicates per step in one of its stages, as declared
// in the optimizer registry (optimizer_registry.h). The step simulator times one row per
// declared stage; core reports the same stage names (stage_name in optimizer.h).
//   kRing                   full-precision ring allreduce of the whole vector
//   kCompressedFlat         compressed allreduce with worker and server error feedback
//   kCompressedHierarchical intra-node mean, compressed allreduce over nodes, allgather

#include <string>

namespace compopt {

enum class CommPattern { kRing, kCompressedFlat, kCompressedHierarchical };

struct StageSpec {
  std::string name;  // "full_precision", "warmup", "compression" or "local"
  CommPattern pattern = CommPattern::kRing;
  std::string compressor;  // compressor spec; empty for kRing
};

const char* comm_pattern_name(CommPattern pattern);

}  // namespace compopt
