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

}  // namespace compopt
