#include "experiments/scenario/phases_table.h"

#include <fmt/format.h>

#include <climits>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "core/util/error.h"
#include "experiments/scenario/toml_values.h"
#include "experiments/scenario/workload_table.h"
#include "net_models/workload.h"

namespace compopt::cli {
namespace {

using sim::TrainingPhase;
using PhaseKey = std::function<void(TrainingPhase&, const toml::node&, const std::string&)>;

// The value as TOML writes it, for messages.
std::string toml_text(const toml::node& node) {
  std::ostringstream out;
  node.visit([&](const auto& v) { out << v; });
  return out.str();
}

int positive_of(const toml::node& node, const std::string& key) {
  const auto v = node.value<int64_t>();
  if (!v || !node.is_integer() || *v < 1 || *v > INT_MAX) {
    throw InvalidArgument(fmt::format("{} = {} {}: expected an integer in 1..{}", key,
                                      toml_text(node), where(node), INT_MAX));
  }
  return static_cast<int>(*v);
}

// A preset's name, or a workload table as [workload] takes.
net::WorkloadSpec workload_of(const toml::node& node, const std::string& key) {
  if (const toml::table* t = node.as_table()) {
    try {
      return workload_from_config(*t);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(fmt::format("{}: {}", key, e.what()));
    }
  }
  const std::string name = text_of(node, key);
  if (!net::workload_registry().contains(name)) {
    throw InvalidArgument(fmt::format("{} = '{}' {}: unknown workload preset, expected {}", key,
                                      name, where(node), net::workload_registry().expected()));
  }
  return net::workload_preset(name);
}

const std::map<std::string, PhaseKey>& phase_keys() {
  static const std::map<std::string, PhaseKey> keys = {
      {"workload", [](TrainingPhase& p, const toml::node& n,
                      const std::string& k) { p.workload = workload_of(n, k); }},
      {"fraction", [](TrainingPhase& p, const toml::node& n,
                      const std::string& k) { p.fraction = number_of(n, k); }},
      {"steps", [](TrainingPhase& p, const toml::node& n,
                   const std::string& k) { p.steps = positive_of(n, k); }},
      {"batch_per_gpu", [](TrainingPhase& p, const toml::node& n,
                           const std::string& k) { p.batch_per_gpu = positive_of(n, k); }},
      {"grad_accum", [](TrainingPhase& p, const toml::node& n,
                        const std::string& k) { p.grad_accum = positive_of(n, k); }},
  };
  return keys;
}

TrainingPhase phase_of(const toml::node& node, const std::string& prefix) {
  const toml::table* table = node.as_table();
  if (!table) {
    throw InvalidArgument(fmt::format(
        "{} {}: expected a table such as {{workload = \"bert-large-seq128\", fraction = 0.9}}",
        prefix, where(node)));
  }
  std::set<std::string> known;
  for (const auto& [name, set] : phase_keys()) known.insert(name);
  check_table_keys(*table, known, prefix);
  if (!table->contains("workload"))
    throw InvalidArgument(
        fmt::format("{}.workload is missing: expected a workload preset", prefix));
  TrainingPhase phase;
  for (const auto& [name, set] : phase_keys()) {
    if (const toml::node* n = table->get(name)) set(phase, *n, prefix + "." + name);
  }
  return phase;
}

}  // namespace

std::vector<sim::TrainingPhase> phases_from_config(const toml::node& phases) {
  const toml::array* array = phases.as_array();
  if (!array || array->empty()) {
    throw InvalidArgument(fmt::format(
        "training.phases = {} {}: expected a non-empty array of tables, e.g. [{{workload = "
        "\"bert-large-seq128\", fraction = 0.9}}, {{workload = \"bert-large-seq512\", fraction "
        "= 0.1}}]",
        toml_text(phases), where(phases)));
  }
  std::vector<sim::TrainingPhase> out;
  out.reserve(array->size());
  for (size_t i = 0; i < array->size(); ++i)
    out.push_back(phase_of(*array->get(i), fmt::format("training.phases[{}]", i + 1)));
  return out;
}

}  // namespace compopt::cli
