#include "core/optim/stage_spec.h"

#include <fmt/format.h>

#include <vector>

namespace compopt {

const char* comm_pattern_name(CommPattern pattern) {
  switch (pattern) {
    case CommPattern::kRing:
      return "ring";
    case CommPattern::kCompressedFlat:
      return "compressed flat";
    case CommPattern::kCompressedHierarchical:
      return "compressed hierarchical";
    case CommPattern::kAllGather:
      return "all-gather";
  }
  return "unknown";
}

const char* stage_overlap_name(StageOverlap overlap) {
  switch (overlap) {
    case StageOverlap::kBehindBackward:
      return "bucketed behind backward";
    case StageOverlap::kAfterBackward:
      return "after backward";
    case StageOverlap::kBehindInnerSteps:
      return "behind the next inner steps";
  }
  return "unknown";
}

std::string stage_volume_text(const StageSpec& stage) {
  std::vector<std::string> parts;
  if (stage.low_rank > 0) parts.push_back(fmt::format("rank-{} factors", stage.low_rank));
  if (stage.wire_fraction != 1.0)
    parts.push_back(fmt::format("{:.3g} of the vector", stage.wire_fraction));
  if (stage.period != 1.0) parts.push_back(fmt::format("every {:g} steps", stage.period));
  if (stage.overlap == StageOverlap::kBehindInnerSteps)
    parts.push_back(fmt::format("behind {} steps", stage.overlap_steps));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace compopt
