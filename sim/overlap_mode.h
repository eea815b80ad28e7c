#pragma once
// OverlapMode: whether the step simulator overlaps a stage's communication with the
// backward pass (DDP-style buckets, step_simulator.h).
//   auto  what the optimizer's implementation does: the stage's StageOverlap in the
//         optimizer registry (core/optim/stage_spec.h; docs/optimizers.md, "Overlap")
//   on    every stage bucketed behind backward, as if the implementation could
//   off   every stage after backward
// The user's override of `compopt profile --overlap[=MODE]` and `sweep.overlap`.

#include <string>
#include <string_view>
#include <vector>

#include "core/optim/stage_spec.h"

namespace compopt::sim {

enum class OverlapMode { kAuto, kOn, kOff };

// "auto", "on" or "off"; throws InvalidArgument ("unknown overlap mode 'x', expected one of
// auto, on, off") for other text.
OverlapMode parse_overlap_mode(std::string_view text);
const std::string& overlap_mode_name(OverlapMode mode);
std::vector<std::string> overlap_mode_names();

// Whether a stage declaring `stage` overlaps backward under `mode`.
bool overlaps_backward(OverlapMode mode, StageOverlap stage);

}  // namespace compopt::sim
