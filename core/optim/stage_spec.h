#pragma once
// StageSpec: what an optimizer communicates per step in one of its stages, as declared
// in the optimizer registry (optimizer_registry.h). The step simulator times one row per
// declared stage; core reports the same stage names (stage_name in optimizer.h).
//   kRing                   full-precision ring allreduce of the whole vector
//   kCompressedFlat         compressed allreduce with worker and server error feedback
//   kCompressedHierarchical intra-node mean, compressed allreduce over nodes, allgather
//   kAllGather              every rank's message gathered by every rank (a sparse top-k)
// and whether the stage's communication can overlap the backward pass in the
// implementation it follows (docs/optimizers.md, "Overlap"):
//   kBehindBackward  the gradient's allreduce, bucketed behind backward as PyTorch DDP and
//                    DeepSpeed's engine do for the uncompressed optimizers
//   kAfterBackward   the vector sent is formed in the optimizer step from the whole local
//                    gradient (momentum, update, parameters), so it starts after backward
//   kBehindInnerSteps sent while the next `overlap_steps` steps compute, applied when it
//                    arrives (Streaming DiLoCo's fragments): only what outlasts them is exposed
// and how much memory traffic its optimizer step moves relative to Adam's (step_bytes_ratio).

#include <string>

namespace compopt {

enum class CommPattern { kRing, kCompressedFlat, kCompressedHierarchical, kAllGather };

enum class StageOverlap { kBehindBackward, kAfterBackward, kBehindInnerSteps };

struct StageSpec {
  std::string name;  // "full_precision", "warmup", "compression" or "local"
  CommPattern pattern = CommPattern::kRing;
  std::string compressor;  // compressor spec; empty for kRing
  StageOverlap overlap = StageOverlap::kAfterBackward;
  // The stage's optimizer step in fp32 bytes moved per parameter, over Adam's (the step a
  // workload's step_bytes_per_param is measured on): counted from the passes of core/optim.
  double step_bytes_ratio = 1.0;
  // Steps per communication: the stage's collective runs once every `period` steps on average
  // (local SGD's tau, DiLoCo's H, 0/1 Adam's interval between synchronisations), so a step is
  // charged its time over `period`. At the registry's default keys.
  double period = 1.0;
  // Bytes of each rank's message over the whole vector's in the uncompressed allreduce's wire
  // format (a top-k's values and indices, one fragment of a streamed vector); 1: the whole vector.
  double wire_fraction = 1.0;
  // > 0: the stage sends rank-`low_rank` factors of each gradient matrix instead of the matrix
  // (PowerSGD); the simulator sizes them taking the workload's tensors as square.
  int low_rank = 0;
  // kBehindInnerSteps: the steps of compute the collective can run behind.
  int overlap_steps = 0;
};

const char* comm_pattern_name(CommPattern pattern);
// How much and how often the stage sends, beyond "the whole vector every step": e.g.
// "rank-4 factors, every 500 steps"; empty for the whole vector every step.
std::string stage_volume_text(const StageSpec& stage);
const char* stage_overlap_name(StageOverlap overlap);

}  // namespace compopt
