#pragma once
// The registries a user picks names from (workload presets, cluster presets, studies of
// `compopt reproduce`) as text: one "name  help" line per entry, or the Markdown table
// docs/simulator.md and docs/reproduction.md show (a test checks the docs hold exactly these
// tables, so they cannot drift from the code). `compopt list <registry> [--markdown]` prints
// them.

#include <functional>
#include <string>

#include "core/util/registry.h"

namespace compopt::cli {

struct RegistryListing : RegistryEntry {
  std::function<std::string()> lines;     // Registry::help_lines() of the listed registry
  std::function<std::string()> markdown;  // its docs table
};

// workloads, clusters, gpus, implementations, studies, optimizers, optimizer-stages.
const Registry<RegistryListing>& registry_listings();

}  // namespace compopt::cli
