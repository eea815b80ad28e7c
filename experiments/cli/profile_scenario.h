#pragma once
// The one scenario `compopt profile` simulates, from three layers, each over the one before:
//   1. CONFIG.toml, when given: a sweep config (experiments/scenario/sweep_config.h), the
//      same file `compopt sweep` reads;
//   2. the flags given on the command line: each replaces the config keys it stands for
//      (kFlagKeys in the .cc: --gpus sweep.gpus, --cluster cluster.preset and cluster.name,
//      ...); the other keys of the file's [cluster] or [workload] table then change the
//      flag's preset as they changed the file's;
//   3. the --set keys, sweep config keys as `compopt sweep --set` takes them.
// Without CONFIG.toml the flags make the scenario and the --set keys apply over it. Every
// [sweep] list must then hold one value. Throws InvalidArgument naming the file, key or flag
// (a missing or unparsable file, an unknown key, a list of several values, whatever
// sweep_config refuses), before any work.

#include <string>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli {

// The profile flags that stand for config keys (every flag that sets the scenario).
std::vector<std::string> profile_scenario_flags();

// `flags`: the scenario of the flags (their defaults where not given); `given_flags`: the
// names of those given (e.g. "--gpus"; other options are ignored); `config_file`: empty for
// none. `tune_baseline`, when given, receives [sweep] tune_baseline of the file and --set keys.
sim::Scenario profile_scenario(const std::string& config_file, const sim::Scenario& flags,
                               const std::vector<std::string>& given_flags,
                               const std::vector<std::string>& sets, bool* tune_baseline = nullptr);

}  // namespace compopt::cli
