#include "experiments/scenario/sweep_config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"
#include "experiments/scenario/cluster_table.h"
#include "experiments/scenario/config_overrides.h"
#include "experiments/scenario/toml_values.h"
#include "experiments/scenario/training_table.h"
#include "experiments/scenario/workload_table.h"
#include "sim/overlap_mode.h"

namespace compopt::cli {
namespace {

constexpr const char* kSetExample = "sweep.gpus=[8,16]";

const std::map<std::string, std::set<std::string>> kKeys = {
    {"workload", workload_config_keys()},
    {"cluster", cluster_config_keys()},
    {"sweep",
     {"optimizers", "gpus", "gpus_per_node", "nics_per_node", "inter_node_gbps", "batch_per_gpu",
      "grad_accum", "topology", "overlap", "buckets", "implementation", "tune_baseline"}},
    {"training", training_config_keys()},
};

std::string join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Unknown tables and keys are errors, not silently ignored.
void check_keys(const toml::table& root, const std::string& source) {
  std::set<std::string> tables;
  for (const auto& [name, keys] : kKeys) tables.insert("[" + name + "]");
  for (const auto& [table_key, node] : root) {
    const std::string table(table_key.str());
    const auto known = kKeys.find(table);
    if (known == kKeys.end() || !node.is_table()) {
      throw InvalidArgument(
          fmt::format("sweep config '{}': unknown top-level key '{}', expected "
                      "one of the tables {}",
                      source, table, join(tables)));
    }
    for (const auto& [key, value] : *node.as_table()) {
      if (!known->second.count(std::string(key.str()))) {
        throw InvalidArgument(
            fmt::format("sweep config '{}': unknown key '{}.{}', expected one of "
                        "{}.{{{}}}",
                        source, table, key.str(), table, join(known->second)));
      }
    }
  }
}

template <typename T>
T scalar(const toml::table& root, const std::string& path, T fallback, const char* expected) {
  const toml::node* node = root.at_path(path).node();
  if (node == nullptr) return fallback;
  const auto v = node->value<T>();
  if (!v || node->is_array()) {
    throw InvalidArgument(fmt::format("{}: the value {} has the wrong type, expected {}", path,
                                      where(*node), expected));
  }
  return *v;
}

template <typename T>
std::vector<T> axis(const toml::table& root, const char* key, std::vector<T> fallback) {
  const toml::node* node = root.at_path(std::string("sweep.") + key).node();
  if (node == nullptr) return fallback;
  std::vector<T> values;
  auto take = [&](const toml::node& item) {
    const auto v = item.value<T>();
    if (!v) {
      throw InvalidArgument(
          fmt::format("sweep.{}: the value {} has the wrong type", key, where(item)));
    }
    if constexpr (std::is_integral_v<T>) {
      if (*v < 0 || *v > INT_MAX) {
        throw InvalidArgument(fmt::format("sweep.{}: {} {} is out of range, expected 0..{}", key,
                                          *v, where(item), INT_MAX));
      }
    }
    values.push_back(*v);
  };
  if (const toml::array* array = node->as_array()) {
    for (const toml::node& item : *array) take(item);
  } else {
    take(*node);
  }
  if (values.empty()) throw InvalidArgument(fmt::format("sweep.{}: empty list", key));
  return values;
}

// An integer key in 0..INT_MAX.
int count_key(const toml::table& root, const std::string& path, int fallback) {
  const int64_t value = scalar(root, path, int64_t{fallback}, "an integer");
  if (value < 0 || value > INT_MAX) {
    throw InvalidArgument(fmt::format("{} = {}, expected 0..{}", path, value, INT_MAX));
  }
  return static_cast<int>(value);
}

// Whether a [cluster] table only picks what profile's flags pick for the scenario's cluster
// (GPUs per node, the GPU, a platform file) and so refines base's preset.
bool refines_scenario_cluster(const toml::table& table) {
  static const std::set<std::string> kScenarioKeys = {"gpus_per_node", "gpu", "platform"};
  for (const auto& [key, node] : table) {
    if (!kScenarioKeys.contains(std::string(key.str()))) return false;
  }
  return true;
}

// The [cluster] table of `root` over `base`: a spec in full, from `preset` or `name`
// (cluster_table.h); a table of scenario keys only (refines_scenario_cluster) builds on base's
// preset; any other table without either describes a new cluster from ClusterSpec's plain
// defaults (efficiencies 1), never from base's preset. The scenario's own GPU, platform and
// GPUs per node take the table's values (the same again at resolve_scenario), so a table key
// replaces the `compopt profile` flag it shares a name with.
sim::Scenario with_cluster(const toml::table& root, sim::Scenario base) {
  toml::table table = *root["cluster"].as_table();
  if (!table.contains("preset") && !table.contains("name") && refines_scenario_cluster(table))
    table.insert("preset", base.cluster);
  // profile's --gpu is the table's GPU unless the table names one, so the fabric defaults of
  // intra_node_fabric come from that GPU; a [cluster.gpu] table without a preset starts from it.
  if (!table.contains("gpu") && !base.gpu.empty()) table.insert("gpu", base.gpu);
  if (toml::table* gpu = table["gpu"].as_table();
      gpu && !gpu->contains("preset") && !base.gpu.empty())
    gpu->insert("preset", base.gpu);
  base.gpus_per_node = count_key(root, "cluster.gpus_per_node", base.gpus_per_node);
  const toml::node* gpu = table.get("gpu");
  base.gpu = gpu != nullptr && gpu->is_table()
                 ? std::string()
                 : scalar(root, "cluster.gpu", base.gpu, "a string or a [cluster.gpu] table");
  base.platform_file = scalar(root, "cluster.platform", base.platform_file, "a string");
  base.cluster_spec = cluster_from_config(table);
  base.cluster = base.cluster_spec->name;
  return base;
}

// sweep.overlap: "auto", "on" or "off" (sim/overlap_mode.h); true and false, its values before
// the modes existed, read as "on" and "off".
sim::OverlapMode overlap_of(const toml::table& root, sim::OverlapMode fallback) {
  const toml::node* node = root.at_path("sweep.overlap").node();
  if (node == nullptr) return fallback;
  if (const auto flag = node->value_exact<bool>())
    return *flag ? sim::OverlapMode::kOn : sim::OverlapMode::kOff;
  const std::string text = scalar(root, "sweep.overlap", std::string(), "auto, on or off");
  try {
    return sim::parse_overlap_mode(text);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("sweep.overlap: {}", e.what()));
  }
}

// The keys outside the axes, over `base`.
sim::Scenario base_of(const toml::table& root, sim::Scenario base) {
  if (const toml::table* workload = root["workload"].as_table()) {
    toml::table table = *workload;
    if (!table.contains("name") && !table.contains("preset")) table.insert("name", base.workload);
    base.workload_spec = workload_from_config(table);
    base.workload = base.workload_spec->name;
  }
  if (root["cluster"].is_table()) base = with_cluster(root, base);
  base.overlap = overlap_of(root, base.overlap);
  base.buckets = count_key(root, "sweep.buckets", base.buckets);
  if (const toml::table* training = root["training"].as_table())
    base.training = training_from_config(*training);
  return base;
}

// One sweep axis: its key and, per value, how that value sets a scenario.
using Setter = std::function<void(sim::Scenario&)>;
struct Axis {
  const char* key;
  std::vector<Setter> values;
};

template <typename T, typename Apply>
Axis axis_of(const toml::table& root, const char* key, T fallback, Apply apply) {
  Axis out{key, {}};
  for (const T& v : axis<T>(root, key, {fallback}))
    out.values.push_back([v, apply](sim::Scenario& s) { apply(s, v); });
  return out;
}

// The axes in grid order (the first varies slowest); an axis not given takes `base`'s value.
std::vector<Axis> axes_of(const toml::table& root, const sim::Scenario& base) {
  using S = sim::Scenario;
  auto to_int = [](int64_t v) { return static_cast<int>(v); };
  return {
      axis_of<std::string>(root, "optimizers", base.optimizer,
                           [](S& s, const std::string& v) { s.optimizer = v; }),
      axis_of<int64_t>(root, "gpus", base.gpus, [&](S& s, int64_t v) { s.gpus = to_int(v); }),
      axis_of<int64_t>(root, "gpus_per_node", base.gpus_per_node,
                       [&](S& s, int64_t v) { s.gpus_per_node = to_int(v); }),
      axis_of<int64_t>(root, "nics_per_node", base.nics_per_node,
                       [&](S& s, int64_t v) { s.nics_per_node = to_int(v); }),
      axis_of<double>(root, "inter_node_gbps", base.inter_node_gbps,
                      [](S& s, double v) { s.inter_node_gbps = v; }),
      axis_of<int64_t>(root, "batch_per_gpu", base.batch_per_gpu,
                       [&](S& s, int64_t v) { s.batch_per_gpu = to_int(v); }),
      axis_of<int64_t>(root, "grad_accum", base.grad_accum,
                       [&](S& s, int64_t v) { s.grad_accum = to_int(v); }),
      axis_of<std::string>(root, "topology", base.topology,
                           [](S& s, const std::string& v) { s.topology = v; }),
      axis_of<std::string>(root, "implementation", base.implementation,
                           [](S& s, const std::string& v) { s.implementation = v; }),
  };
}

// Throws when the grid holds more than kMaxSweepScenarios scenarios, naming every axis size.
void check_grid_size(const std::vector<Axis>& axes) {
  size_t count = 1;
  bool over = false;
  std::string sizes;
  for (const Axis& a : axes) {
    over = over || a.values.size() > kMaxSweepScenarios / count;
    if (!over) count *= a.values.size();
    sizes += fmt::format("{}{} {}", sizes.empty() ? "" : " x ", a.key, a.values.size());
  }
  if (over) {
    throw InvalidArgument(
        fmt::format("sweep: the axes give more than {} scenarios ({})", kMaxSweepScenarios, sizes));
  }
}

// The grid of the axes over the keys outside them, the last axis varying fastest.
std::vector<sim::Scenario> scenarios_of(const toml::table& root, const sim::Scenario& defaults) {
  const sim::Scenario base = base_of(root, defaults);
  const std::vector<Axis> axes = axes_of(root, base);
  check_grid_size(axes);
  std::vector<sim::Scenario> out;
  std::vector<size_t> at(axes.size(), 0);
  while (true) {
    sim::Scenario s = base;
    for (size_t i = 0; i < axes.size(); ++i) axes[i].values[at[i]](s);
    out.push_back(s);
    size_t i = axes.size();
    while (i > 0 && ++at[i - 1] == axes[i - 1].values.size()) at[--i] = 0;
    if (i == 0) return out;
  }
}

}  // namespace

namespace {

toml::table parse_sweep_toml(std::string_view text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw InvalidArgument(fmt::format("sweep config '{}': {} (line {})", source, e.description(),
                                      e.source().begin.line));
  }
}

}  // namespace

SweepConfig parse_sweep_config(std::string_view text, const std::string& source,
                               const std::vector<std::string>& sets) {
  return sweep_config_from_table(parse_sweep_toml(text, source), source, sets);
}

SweepConfig sweep_config_from_table(toml::table root, const std::string& source,
                                    const std::vector<std::string>& sets) {
  canonicalize_keys(root, fmt::format("sweep config '{}'", source));
  for (const std::string& s : sets) ConfigOverride(s, kSetExample).apply_to(root);
  check_keys(root, source);
  SweepConfig config;
  config.tune_baseline = tune_baseline_of(root);
  config.scenarios = scenarios_of(root, sim::Scenario{});
  for (const sim::Scenario& s : config.scenarios) sim::resolve_scenario(s);
  std::ostringstream resolved;
  resolved << toml::json_formatter(root);
  config.resolved = nlohmann::json::parse(resolved.str(), nullptr, false);
  if (config.resolved.is_discarded()) {
    throw InvalidArgument(
        fmt::format("sweep config '{}': a value cannot be written to run.json "
                    "(not representable in JSON)",
                    source));
  }
  return config;
}

bool tune_baseline_of(const toml::table& root) {
  const toml::node* node = root.at_path("sweep.tune_baseline").node();
  if (node == nullptr) return false;
  if (const auto flag = node->value_exact<bool>()) return *flag;
  std::ostringstream value;
  node->visit([&value](const auto& v) { value << v; });
  throw InvalidArgument(
      fmt::format("sweep.tune_baseline = {} {}: expected true or false (true also runs the "
                  "uncompressed baseline tuned, as --tune-baseline)",
                  value.str(), where(*node)));
}

sim::Scenario apply_scenario_sets(const sim::Scenario& base, const std::vector<std::string>& sets) {
  toml::table root;
  for (const std::string& s : sets) ConfigOverride(s, "cluster.gpus_per_node=8").apply_to(root);
  return scenario_from_table(base, std::move(root), "--set");
}

sim::Scenario scenario_from_table(const sim::Scenario& base, toml::table root,
                                  const std::string& source) {
  canonicalize_keys(root, source);
  check_keys(root, source);
  const std::vector<sim::Scenario> scenarios = scenarios_of(root, base);
  if (scenarios.size() != 1) {
    throw InvalidArgument(
        fmt::format("{}: the values give {} scenarios, expected one (compopt sweep runs a grid)",
                    source, scenarios.size()));
  }
  return scenarios.front();
}

toml::table read_sweep_toml(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InvalidArgument(fmt::format("sweep config '{}': not found or not a regular file", path));
  }
  try {
    return parse_sweep_toml(read_text_file(path), path);
  } catch (const IoError& e) {
    throw InvalidArgument(fmt::format("sweep config '{}': {}", path, e.what()));
  }
}

SweepConfig load_sweep_config(const std::string& path, const std::vector<std::string>& sets) {
  return sweep_config_from_table(read_sweep_toml(path), path, sets);
}

}  // namespace compopt::cli
