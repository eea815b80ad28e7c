#include "core/optim/stage_spec.h"

namespace compopt {

const char* comm_pattern_name(CommPattern pattern) {
  switch (pattern) {
    case CommPattern::kRing:
      return "ring";
    case CommPattern::kCompressedFlat:
      return "compressed flat";
    case CommPattern::kCompressedHierarchical:
      return "compressed hierarchical";
  }
  return "unknown";
}

const char* stage_overlap_name(StageOverlap overlap) {
  switch (overlap) {
    case StageOverlap::kBehindBackward:
      return "bucketed behind backward";
    case StageOverlap::kAfterBackward:
      return "after backward";
  }
  return "unknown";
}

}  // namespace compopt
