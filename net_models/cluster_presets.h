#pragma once
// Named clusters of the papers (experiments/published/clusters.csv), with nominal link
// figures from public hardware specs and efficiencies calibrated against
// experiments/published/onebit_adam_profile.csv (docs/calibration.md).

#include <string>
#include <string_view>
#include <vector>

#include "net_models/cluster_spec.h"

namespace compopt::net {

// Throws InvalidArgument naming the unknown preset and listing the known ones.
ClusterSpec cluster_preset(std::string_view name);
std::vector<std::string> cluster_preset_names();

}  // namespace compopt::net
