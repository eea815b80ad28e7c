#pragma once
// Configuration of `compopt sweep`: a TOML text (tables [workload], [cluster], [sweep],
// [training]) plus
// `--set a.b=value` overrides (config_overrides.h), parsed into the grid of scenarios it describes.
// Every problem (unparsable TOML, unknown table or key, a value of the wrong type or range, an
// empty axis, a grid too large, a scenario that does not resolve) throws InvalidArgument naming the
// key, before any simulation work.
//
//   [workload] name            workload preset, or a model in full (workload_table.h)
//   [cluster]  preset          cluster preset (default: the scenario's), or a cluster in full
//                              (cluster_table.h): gpu, gpus_per_node (0 = the preset's; alias
//                              ranks_per_node), platform (a SimGrid platform XML instead), ...
//   [sweep]    optimizers, gpus, gpus_per_node, inter_node_gbps, batch_per_gpu, grad_accum,
//              topology, implementation (sim/implementation_profile.h, default ddp): one value
//              or an array (the grid is their product); overlap (bool), buckets (integer >= 0),
//              tune_baseline (bool: also run each scenario's baseline tuned,
//              tuned_baseline_columns.h)
//   [training] whole-run inputs (training_table.h): total steps, warmup, targets, phases

#include <toml++/toml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli {

// Scenarios of one sweep, at most kMaxSweepScenarios.
inline constexpr size_t kMaxSweepScenarios = 100000;

struct SweepConfig {
  std::vector<sim::Scenario> scenarios;  // each one resolves (sim::resolve_scenario)
  nlohmann::json resolved;               // the config after the overrides, for run.json
  bool tune_baseline = false;            // [sweep] tune_baseline
};

// [sweep] tune_baseline of a config's tables: false when absent; anything but true or false
// throws InvalidArgument naming the value.
bool tune_baseline_of(const toml::table& root);

// `source` names the text in messages (the file).
SweepConfig parse_sweep_config(std::string_view text, const std::string& source,
                               const std::vector<std::string>& sets);
// The same from a config already read into a table (compopt.sweep in Python passes a dict).
SweepConfig sweep_config_from_table(toml::table root, const std::string& source,
                                    const std::vector<std::string>& sets);
// One scenario (compopt profile): `base` with the --set keys of a sweep config applied (an
// axis given one value). Throws InvalidArgument for a bad --set, an unknown key, a value of
// the wrong type, or values that give more than one scenario (sim::resolve_scenario checks
// the rest).
sim::Scenario apply_scenario_sets(const sim::Scenario& base, const std::vector<std::string>& sets);
// The same with the keys in `root`, tables of a sweep config (compopt.simulate in Python);
// `source` starts the messages.
sim::Scenario scenario_from_table(const sim::Scenario& base, toml::table root,
                                  const std::string& source);
// The TOML document of the sweep config file `path`, not yet checked: a missing, unreadable or
// unparsable file throws InvalidArgument "sweep config '<path>': ...".
toml::table read_sweep_toml(const std::string& path);
// read_sweep_toml, then sweep_config_from_table.
SweepConfig load_sweep_config(const std::string& path, const std::vector<std::string>& sets);

}  // namespace compopt::cli
