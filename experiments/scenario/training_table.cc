#include "experiments/scenario/training_table.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <vector>

#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"
#include "experiments/scenario/phases_table.h"
#include "experiments/scenario/toml_values.h"

namespace compopt::cli {
namespace {

using sim::TrainingSpec;

int64_t count_of(const toml::node& node, const std::string& key, int64_t least) {
  const auto v = node.value<int64_t>();
  if (!v || !node.is_integer() || *v < least) {
    throw InvalidArgument(fmt::format("{} = {} {}: expected an integer >= {}", key,
                                      v ? std::to_string(*v) : std::string("(not an integer)"),
                                      where(node), least));
  }
  return *v;
}

double number_of(const toml::node& node, const std::string& key) {
  const auto v = node.value<double>();
  if (!v || node.is_array() || !std::isfinite(*v))
    throw InvalidArgument(fmt::format("{} {}: expected a finite number", key, where(node)));
  return *v;
}

std::string text_of(const toml::node& node, const std::string& key) {
  if (const auto v = node.value<std::string>(); v && node.is_string()) return *v;
  throw InvalidArgument(fmt::format("{} {}: expected a string", key, where(node)));
}

// An optimizer named as a key of a per-optimizer table, canonical.
std::string optimizer_of(std::string_view name, const std::string& table) {
  if (!optimizer_registry().contains(name)) {
    throw InvalidArgument(fmt::format("training.{}.{}: unknown optimizer '{}', expected one of {}",
                                      table, name, name, optimizer_registry().expected()));
  }
  return optimizer_registry().canonical(name);
}

const toml::table& table_of(const toml::node& node, const std::string& key) {
  if (const toml::table* t = node.as_table()) return *t;
  throw InvalidArgument(
      fmt::format("{} {}: expected a table of optimizer = value, e.g. "
                  "{{adam = 9000, onebit-adam = 9500}}",
                  key, where(node)));
}

// The first step of the file at `path` reaching the target, and its run's warmup.
void read_metrics(const std::string& path, const std::string& key, const std::string& optimizer,
                  TrainingSpec& spec) {
  if (!spec.target || spec.metric.empty()) {
    throw InvalidArgument(
        fmt::format("{}: reading a metrics.csv needs training.target and training.metric", key));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InvalidArgument(fmt::format("{} = '{}': not found or not a regular file", key, path));
  try {
    const std::string text = read_text_file(path);
    spec.steps_to_target[optimizer] =
        sim::first_step_reaching(text, path, spec.metric, *spec.target);
    if (const auto run = sim::run_warmup(text, path)) spec.run_warmups[optimizer] = *run;
  } catch (const IoError& e) {
    throw InvalidArgument(fmt::format("{} = '{}': {}", key, path, e.what()));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("{}: {}", key, e.what()));
  }
}

void read_targets(const toml::table& table, TrainingSpec& spec) {
  if (const toml::node* n = table.get("steps_to_target")) {
    for (const auto& [name, value] : table_of(*n, "training.steps_to_target")) {
      const std::string key = fmt::format("training.steps_to_target.{}", name.str());
      spec.steps_to_target[optimizer_of(name.str(), "steps_to_target")] = count_of(value, key, 1);
    }
  }
  if (const toml::node* n = table.get("metrics")) {
    for (const auto& [name, value] : table_of(*n, "training.metrics")) {
      const std::string key = fmt::format("training.metrics.{}", name.str());
      const std::string optimizer = optimizer_of(name.str(), "metrics");
      if (spec.steps_to_target.count(optimizer)) {
        throw InvalidArgument(fmt::format(
            "{}: {} is in training.steps_to_target too, expected one of them", key, optimizer));
      }
      read_metrics(text_of(value, key), key, optimizer, spec);
    }
  }
}

struct ScalarKey {
  const char* name;
  std::function<void(TrainingSpec&, const toml::node&, const std::string&)> set;
};

const std::vector<ScalarKey>& scalar_keys() {
  static const std::vector<ScalarKey> keys = {
      {"total_steps", [](TrainingSpec& s, const toml::node& n,
                         const std::string& k) { s.total_steps = count_of(n, k, 1); }},
      {"total_samples", [](TrainingSpec& s, const toml::node& n,
                           const std::string& k) { s.total_samples = count_of(n, k, 1); }},
      {"warmup_steps", [](TrainingSpec& s, const toml::node& n,
                          const std::string& k) { s.warmup_steps = count_of(n, k, 0); }},
      {"warmup_fraction",
       [](TrainingSpec& s, const toml::node& n, const std::string& k) {
         const double v = number_of(n, k);
         if (v < 0 || v > 1) throw InvalidArgument(fmt::format("{} = {}, expected 0..1", k, v));
         s.warmup_fraction = v;
       }},
      {"metric", [](TrainingSpec& s, const toml::node& n,
                    const std::string& k) { s.metric = text_of(n, k); }},
      {"target", [](TrainingSpec& s, const toml::node& n,
                    const std::string& k) { s.target = number_of(n, k); }},
      {"baseline",
       [](TrainingSpec& s, const toml::node& n, const std::string& k) {
         const std::string name = text_of(n, k);
         if (!optimizer_registry().contains(name)) {
           throw InvalidArgument(fmt::format("{} = '{}': unknown optimizer, expected one of {}", k,
                                             name, optimizer_registry().expected()));
         }
         s.baseline = optimizer_registry().canonical(name);
       }},
  };
  return keys;
}

}  // namespace

const std::set<std::string>& training_config_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> out = {"steps_to_target", "metrics", "phases"};
    for (const ScalarKey& k : scalar_keys()) out.insert(k.name);
    return out;
  }();
  return keys;
}

sim::TrainingSpec training_from_config(const toml::table& table) {
  TrainingSpec spec;
  for (const ScalarKey& key : scalar_keys()) {
    if (const toml::node* n = table.get(key.name))
      key.set(spec, *n, std::string("training.") + key.name);
  }
  if (!spec.metric.empty()) sim::higher_is_better(spec.metric);
  read_targets(table, spec);
  if (const toml::node* n = table.get("phases")) spec.phases = phases_from_config(*n);
  return spec;
}

}  // namespace compopt::cli
