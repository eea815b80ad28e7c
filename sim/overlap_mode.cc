#include "sim/overlap_mode.h"

#include "core/util/registry.h"

namespace compopt::sim {
namespace {

struct OverlapModeEntry : RegistryEntry {
  OverlapMode mode = OverlapMode::kAuto;
};

OverlapModeEntry mode_entry(std::string name, std::string help, OverlapMode mode) {
  OverlapModeEntry e;
  e.name = std::move(name);
  e.help = std::move(help);
  e.mode = mode;
  return e;
}

const Registry<OverlapModeEntry>& overlap_modes() {
  static const Registry<OverlapModeEntry> registry = [] {
    Registry<OverlapModeEntry> r("overlap mode");
    r.add(mode_entry("auto", "each stage as its optimizer's implementation does",
                     OverlapMode::kAuto));
    r.add(mode_entry("on", "every stage bucketed behind backward", OverlapMode::kOn));
    r.add(mode_entry("off", "every stage after backward", OverlapMode::kOff));
    return r;
  }();
  return registry;
}

}  // namespace

OverlapMode parse_overlap_mode(std::string_view text) { return overlap_modes().get(text).mode; }

const std::string& overlap_mode_name(OverlapMode mode) {
  for (const OverlapModeEntry& e : overlap_modes().entries()) {
    if (e.mode == mode) return e.name;
  }
  return overlap_modes().entries().front().name;
}

std::vector<std::string> overlap_mode_names() { return overlap_modes().names(); }

bool overlaps_backward(OverlapMode mode, StageOverlap stage) {
  if (mode == OverlapMode::kAuto) return stage == StageOverlap::kBehindBackward;
  return mode == OverlapMode::kOn;
}

}  // namespace compopt::sim
