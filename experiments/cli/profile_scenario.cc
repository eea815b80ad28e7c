#include "experiments/cli/profile_scenario.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>

#include "core/util/error.h"
#include "experiments/scenario/config_overrides.h"
#include "experiments/scenario/sweep_config.h"

namespace compopt::cli {
namespace {

// A profile flag and the config keys ("table.key") it replaces.
struct FlagKeys {
  std::string_view flag;
  std::array<std::string_view, 2> keys;  // the second may be empty
};

constexpr FlagKeys kFlagKeys[] = {
    {"--workload", {"workload.name", "workload.preset"}},
    {"--cluster", {"cluster.preset", "cluster.name"}},
    {"--gpu", {"cluster.gpu"}},
    {"--platform", {"cluster.platform"}},
    {"--optimizer", {"sweep.optimizers"}},
    {"--gpus", {"sweep.gpus"}},
    {"--gpus-per-node", {"cluster.gpus_per_node", "sweep.gpus_per_node"}},
    {"--inter-node-gbps", {"sweep.inter_node_gbps"}},
    {"--topology", {"sweep.topology"}},
    {"--batch-per-gpu", {"sweep.batch_per_gpu"}},
    {"--grad-accum", {"sweep.grad_accum"}},
    {"--overlap", {"sweep.overlap"}},
    {"--buckets", {"sweep.buckets"}},
    {"--implementation", {"sweep.implementation"}},
    {"--tune-baseline", {"sweep.tune_baseline"}},
};

// Removes from `root` the keys of the flags given, so the flags' values stand.
void drop_flag_keys(toml::table& root, const std::vector<std::string>& given_flags) {
  for (const FlagKeys& f : kFlagKeys) {
    if (std::find(given_flags.begin(), given_flags.end(), f.flag) == given_flags.end()) continue;
    for (std::string_view key : f.keys) {
      if (key.empty()) continue;
      const size_t dot = key.find('.');
      toml::table* table = root[key.substr(0, dot)].as_table();
      if (table == nullptr) continue;
      table->erase(key.substr(dot + 1));
      if (table->empty()) root.erase(key.substr(0, dot));
    }
  }
}

// Throws naming the first [sweep] list that does not hold exactly one value; `where` starts
// the message.
void check_one_value(const toml::table& root, const std::string& where) {
  const toml::table* sweep = root["sweep"].as_table();
  if (sweep == nullptr) return;
  for (const auto& [key, node] : *sweep) {
    const toml::array* list = node.as_array();
    if (list == nullptr || list->size() == 1) continue;
    std::ostringstream values;
    values << *list;
    throw InvalidArgument(fmt::format(
        "{}: sweep.{} = {} holds {} values, expected one: compopt profile simulates one "
        "scenario (choose one with its flag or --set sweep.{}=VALUE, or run the grid with "
        "compopt sweep)",
        where, key.str(), values.str(), list->size(), key.str()));
  }
}

// --cluster names the preset a [cluster] table (from the file or --set) builds on, unless the
// table names its own; without the flag a table of cluster keys starts from the plain defaults
// (sweep_config.h).
void name_cluster_flag(toml::table& root, const sim::Scenario& flags,
                       const std::vector<std::string>& given_flags) {
  toml::table* cluster = root["cluster"].as_table();
  if (cluster == nullptr || cluster->contains("preset") || cluster->contains("name")) return;
  if (std::find(given_flags.begin(), given_flags.end(), "--cluster") == given_flags.end()) return;
  cluster->insert("preset", flags.cluster);
}

}  // namespace

std::vector<std::string> profile_scenario_flags() {
  std::vector<std::string> names;
  for (const FlagKeys& f : kFlagKeys) names.emplace_back(f.flag);
  return names;
}

sim::Scenario profile_scenario(const std::string& config_file, const sim::Scenario& flags,
                               const std::vector<std::string>& given_flags,
                               const std::vector<std::string>& sets, bool* tune_baseline) {
  toml::table root = config_file.empty() ? toml::table{} : read_sweep_toml(config_file);
  canonicalize_keys(root, fmt::format("sweep config '{}'", config_file));
  drop_flag_keys(root, given_flags);
  for (const std::string& s : sets) ConfigOverride(s, "cluster.gpus_per_node=8").apply_to(root);
  name_cluster_flag(root, flags, given_flags);
  check_one_value(root,
                  config_file.empty() ? "--set" : fmt::format("sweep config '{}'", config_file));
  const bool tune = tune_baseline_of(root);
  if (tune_baseline != nullptr) *tune_baseline = tune;
  // Names the file in messages as `compopt sweep` does.
  return scenario_from_table(flags, std::move(root), config_file.empty() ? "--set" : config_file);
}

}  // namespace compopt::cli
