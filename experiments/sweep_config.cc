#include "experiments/sweep_config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"

namespace compopt::cli {
namespace {

const std::map<std::string, std::set<std::string>> kKeys = {
    {"workload", {"name"}},
    {"cluster", {"preset", "platform"}},
    {"sweep",
     {"optimizers", "gpus", "inter_node_gbps", "batch_per_gpu", "grad_accum", "topology", "overlap",
      "buckets"}},
};

// "at line N" of the config file, or "from --set" for a value an override inserted.
std::string where(const toml::node& node) {
  const auto line = node.source().begin.line;
  return line > 0 ? fmt::format("at line {}", line) : std::string("from --set");
}

std::string join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Applies "a.b.c=value" to the table; value is read as TOML, or as a string.
void apply_set(toml::table& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InvalidArgument(
        fmt::format("--set '{}': expected key=value, e.g. sweep.gpus=[8,16]", assignment));
  }
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  toml::table* table = &root;
  std::string::size_type start = 0, dot;
  while ((dot = key.find('.', start)) != std::string::npos) {
    const std::string part = key.substr(start, dot - start);
    if (!table->contains(part)) table->insert(part, toml::table{});
    table = (*table)[part].as_table();
    if (table == nullptr)
      throw InvalidArgument(fmt::format("--set '{}': '{}' is not a table", assignment, part));
    start = dot + 1;
  }
  const std::string leaf = key.substr(start);
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + text);
  } catch (const toml::parse_error&) {
    table->insert_or_assign(leaf, text);
    return;
  }
  if (const toml::node* v = parsed.get("v")) {
    table->insert_or_assign(leaf, *v);
  } else {
    table->insert_or_assign(leaf, text);
  }
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

std::vector<sim::Scenario> scenarios_of(const toml::table& root) {
  sim::Scenario base;
  base.workload = scalar(root, "workload.name", base.workload, "a string");
  base.cluster = scalar(root, "cluster.preset", base.cluster, "a string");
  base.platform_file = scalar(root, "cluster.platform", std::string(), "a string");
  base.overlap = scalar(root, "sweep.overlap", false, "true or false");
  const int64_t buckets = scalar(root, "sweep.buckets", int64_t{0}, "an integer");
  if (buckets < 0 || buckets > INT_MAX) {
    throw InvalidArgument(fmt::format("sweep.buckets = {}, expected 0..{}", buckets, INT_MAX));
  }
  base.buckets = static_cast<int>(buckets);
  const auto optimizers = axis<std::string>(root, "optimizers", {"adam"});
  const auto gpus = axis<int64_t>(root, "gpus", {0});
  const auto gbps = axis<double>(root, "inter_node_gbps", {0.0});
  const auto batches = axis<int64_t>(root, "batch_per_gpu", {0});
  const auto accums = axis<int64_t>(root, "grad_accum", {1});
  const auto topologies = axis<std::string>(root, "topology", {""});
  size_t count = 1;
  for (const size_t n : {optimizers.size(), gpus.size(), gbps.size(), batches.size(), accums.size(),
                         topologies.size()}) {
    if (n > kMaxSweepScenarios / count) {
      throw InvalidArgument(
          fmt::format("sweep: the axes give more than {} scenarios (optimizers {} x gpus {} x "
                      "inter_node_gbps {} x batch_per_gpu {} x grad_accum {} x topology {})",
                      kMaxSweepScenarios, optimizers.size(), gpus.size(), gbps.size(),
                      batches.size(), accums.size(), topologies.size()));
    }
    count *= n;
  }
  std::vector<sim::Scenario> out;
  for (const auto& optimizer : optimizers)
    for (const auto g : gpus)
      for (const auto b : gbps)
        for (const auto batch : batches)
          for (const auto accum : accums)
            for (const auto& topology : topologies) {
              sim::Scenario s = base;
              s.optimizer = optimizer;
              s.gpus = static_cast<int>(g);
              s.inter_node_gbps = b;
              s.batch_per_gpu = static_cast<int>(batch);
              s.grad_accum = static_cast<int>(accum);
              s.topology = topology;
              out.push_back(s);
            }
  return out;
}

}  // namespace

SweepConfig parse_sweep_config(std::string_view text, const std::string& source,
                               const std::vector<std::string>& sets) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw InvalidArgument(fmt::format("sweep config '{}': {} (line {})", source, e.description(),
                                      e.source().begin.line));
  }
  for (const std::string& s : sets) apply_set(root, s);
  check_keys(root, source);
  SweepConfig config;
  config.scenarios = scenarios_of(root);
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

SweepConfig load_sweep_config(const std::string& path, const std::vector<std::string>& sets) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InvalidArgument(fmt::format("sweep config '{}': not found or not a regular file", path));
  }
  try {
    return parse_sweep_config(read_text_file(path), path, sets);
  } catch (const IoError& e) {
    throw InvalidArgument(fmt::format("sweep config '{}': {}", path, e.what()));
  }
}

}  // namespace compopt::cli
