#pragma once
// Named clusters of the papers (data/published/clusters.csv), with nominal link
// figures from public hardware specs and efficiencies calibrated against
// data/published/onebit_adam_profile.csv (docs/calibration.md), and DGX-style
// clusters (dgx-a100, dgx-h100, dgx-b200, h100-ethernet-25g) whose every figure comes from
// public specs, links at nominal rate (efficiency 1, nothing to fit). The presets form
// one registry (name, aliases, one-line help, the spec itself as the defaults a scenario
// starts from).

#include <string>
#include <string_view>
#include <vector>

#include "core/util/registry.h"
#include "net_models/cluster_spec.h"

namespace compopt::net {

struct ClusterEntry : RegistryEntry {
  ClusterSpec spec;  // its `name` is the entry's canonical name
};

// The presets, in the order --help and docs/simulator.md list them.
const Registry<ClusterEntry>& cluster_registry();

// The preset of a name or alias. Throws InvalidArgument naming the unknown preset and
// listing the known ones.
ClusterSpec cluster_preset(std::string_view name);
// Canonical names.
std::vector<std::string> cluster_preset_names();

}  // namespace compopt::net
