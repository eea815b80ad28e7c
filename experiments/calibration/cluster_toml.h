#pragma once
// Writes a cluster as the [cluster] table of a compopt config (experiments/scenario/
// cluster_table.h reads it back to the same cluster): every field explicit, so the table
// stands alone in a sweep or profile config, `--set`-free, and in Python's TOML readers.
// The GPU goes in a [cluster.gpu] table (its preset and every figure), the transports as
// their registry names with each field.

#include <string>

#include "net_models/cluster_spec.h"

namespace compopt::calibration {

// The TOML text of `cluster`: `header` (comment lines, each starting "# ") then [cluster] and
// [cluster.gpu].
std::string cluster_toml(const net::ClusterSpec& cluster, const std::string& header);

}  // namespace compopt::calibration
