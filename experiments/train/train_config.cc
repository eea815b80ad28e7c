#include "experiments/train/train_config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/optim/deepspeed_config.h"
#include "core/optim/optimizer_factory.h"
#include "core/tasks/task_factory.h"
#include "core/train/shard_sampler.h"
#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"
#include "experiments/scenario/cluster_table.h"
#include "experiments/scenario/config_overrides.h"
#include "experiments/scenario/toml_values.h"
#include "experiments/train/train_limits.h"
#include "net_models/cluster_presets.h"
#include "real_backend/backend_registry.h"

namespace compopt::cli {
namespace {

const std::vector<std::string> kTables = {"run", "task", "optimizer", "schedule"};
// The backends `compopt train` runs on (BackendTraits::trains), or the ones it does not.
std::vector<std::string> train_backends(bool trains) {
  std::vector<std::string> out;
  for (const auto& b : backend_registry().entries()) {
    if (b.traits.trains == trains) out.push_back(b.name);
  }
  return out;
}
const std::set<std::string> kStepKeys = {"freeze_step",      "warmup_steps",  "total_steps",
                                         "decay_every",      "amsgrad_start", "var_freeze_step",
                                         "local_step_scaler"};

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

bool known_table(const std::string& t) {
  return std::find(kTables.begin(), kTables.end(), t) != kTables.end();
}

std::string scalar_text(const toml::node& node, const std::string& key) {
  if (auto s = node.value<std::string>(); s && node.is_string()) return *s;
  if (node.is_integer()) return std::to_string(node.as_integer()->get());
  if (node.is_floating_point()) return fmt::format("{}", node.as_floating_point()->get());
  if (node.is_boolean()) return node.as_boolean()->get() ? "true" : "false";
  if (const toml::array* arr = node.as_array()) {
    std::vector<std::string> parts;
    for (const toml::node& item : *arr) {
      if (item.is_array() || item.is_table()) {
        throw InvalidArgument(
            fmt::format("config key '{}': nested arrays/tables are not supported", key));
      }
      parts.push_back(scalar_text(item, key));
    }
    return join(parts, ",");
  }
  throw InvalidArgument(
      fmt::format("config key '{}': unsupported value type (expected a string, "
                  "number, boolean or array)",
                  key));
}

// "table.key" -> value text of one --set; validates the table name.
std::pair<std::string, std::string> parse_override(const std::string& text) {
  const ConfigOverride o(text, "run.steps=100");
  const std::string key = o.key();
  if (o.path().size() != 2) {
    throw InvalidArgument(fmt::format("--set '{}': key '{}' must be table.key (tables: {})", text,
                                      key, join(kTables)));
  }
  if (!known_table(o.path()[0])) {
    throw InvalidArgument(
        fmt::format("--set '{}': unknown table '{}' in key '{}', expected one of {}", text,
                    o.path()[0], key, join(kTables)));
  }
  // Numbers and booleans keep their text as given (1e-3 stays 1e-3, as in run.json and
  // checkpoints of earlier runs); strings lose their quotes, arrays become "a,b".
  const toml::node& v = o.value();
  return {key, v.is_string() || v.is_array() ? scalar_text(v, key) : o.value_text()};
}

// "P%" of the total steps for step-count keys; other values unchanged.
std::string resolve_percent(const std::string& key, const std::string& full_key,
                            const std::string& value, int64_t total) {
  if (value.empty() || value.back() != '%' || !kStepKeys.count(key)) return value;
  const std::string number = value.substr(0, value.size() - 1);
  char* end = nullptr;
  const double p = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !(p > 0) || p > 100) {
    throw InvalidArgument(fmt::format("config key '{}' = '{}', expected a percentage in (0%, 100%]",
                                      full_key, value));
  }
  const auto steps = static_cast<int64_t>(std::llround(p / 100.0 * static_cast<double>(total)));
  return std::to_string(std::max<int64_t>(1, steps));
}

// optimizer.deepspeed: the optimizer block of a DeepSpeed JSON config gives the optimizer and
// its keys (core/optim/deepspeed_config.h); the other [optimizer]/[schedule] keys add to them.
void apply_deepspeed(const std::string& path, TrainConfig& c, HyperParamMap& params) {
  if (!c.optimizer.empty()) {
    throw InvalidArgument(
        "config keys 'optimizer.name' and 'optimizer.deepspeed' are both set, "
        "expected one of them");
  }
  const DeepSpeedOptimizer mapped = deepspeed_optimizer_file(path);
  c.optimizer = mapped.optimizer;
  for (const auto& [key, value] : mapped.keys) {
    if (params.count(key)) {
      throw InvalidArgument(
          fmt::format("optimizer key '{}' is set both by the DeepSpeed config "
                      "'{}' and by [optimizer]/[schedule], expected one",
                      key, path));
    }
    params[key] = value;
  }
}

void resolve_optimizer(TrainConfig& c) {
  HyperParamMap params;
  std::string schedule_type;
  std::string deepspeed;
  for (const auto& [full, value] : c.values) {
    const auto dot = full.find('.');
    const std::string table = full.substr(0, dot), key = full.substr(dot + 1);
    if (table == "optimizer" && key == "name") {
      c.optimizer = value;
    } else if (table == "optimizer" && key == "deepspeed") {
      deepspeed = value;
    } else if (table == "optimizer" || table == "schedule") {
      const std::string target = table == "schedule" && key == "type" ? "schedule" : key;
      if (table == "schedule" && key == "schedule") {
        throw InvalidArgument("config key 'schedule.schedule': use schedule.type");
      }
      if (params.count(target)) {
        throw InvalidArgument(
            fmt::format("config key '{}' sets optimizer key '{}' twice (given in "
                        "both [optimizer] and [schedule])",
                        full, target));
      }
      params[target] = resolve_percent(key, full, value, c.steps);
    }
  }
  if (!deepspeed.empty()) apply_deepspeed(deepspeed, c, params);
  if (c.optimizer.empty()) c.optimizer = "adam";
  const auto sched = params.find("schedule");
  if (sched != params.end() &&
      (sched->second == "cosine" || sched->second == "linear_warmup_linear_decay") &&
      !params.count("total_steps")) {
    params["total_steps"] = std::to_string(c.steps);
  }
  if (!params.count("seed")) params["seed"] = std::to_string(c.seed);
  c.optimizer_params = params;
  std::unique_ptr<Optimizer> probe;
  try {
    probe = make_optimizer(c.optimizer, c.optimizer_params, c.task->layout());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(
        fmt::format("config [optimizer]/[schedule] (keys optimizer.<key>, "
                    "schedule.<key>): {}",
                    e.what()));
  }
  const std::optional<int64_t> earliest = probe->earliest_automatic_stage_change();
  if (earliest && *earliest > c.steps) {
    c.warnings.push_back(fmt::format(
        "{} changes stage by itself (freeze_step = auto) at step {} at the earliest (the "
        "variance is compared over 1/(1-beta2) steps, after any LR warmup), but the run has {} "
        "steps: it will never compress. Give optimizer.freeze_step a step or a percentage, or "
        "run longer.",
        c.optimizer, *earliest, c.steps));
  }
}

// Flattens a TOML file (parse_toml_flat). Throws InvalidArgument.
std::map<std::string, std::string> read_toml_flat(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InvalidArgument(fmt::format("config file '{}': not found or not a regular file", path));
  }
  try {
    return parse_toml_flat(read_text_file(path), path);
  } catch (const IoError& e) {
    throw InvalidArgument(fmt::format("config file '{}': {}", path, e.what()));
  }
}

// The file's flat keys with the overrides applied; an override of the run
// length replaces the file's other length key.
std::map<std::string, std::string> merged_values(const std::string& path,
                                                 const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> values;
  if (!path.empty()) values = read_toml_flat(path);
  std::set<std::string> overridden;
  for (const auto& o : overrides) {
    auto [key, value] = parse_override(o);
    values[key] = value;
    overridden.insert(key);
  }
  for (const auto& [key, other] :
       {std::pair{"run.steps", "run.epochs"}, {"run.epochs", "run.steps"}}) {
    if (overridden.count(key) && !overridden.count(other)) values.erase(other);
  }
  return values;
}

// The [run] and [task] keys, which load_train_config reads through one HyperParams.
HyperParamMap run_and_task_keys(const std::map<std::string, std::string>& values) {
  HyperParamMap run_task;
  for (const auto& [key, value] : values) {
    if (key.rfind("run.", 0) == 0 || key.rfind("task.", 0) == 0) run_task[key] = value;
  }
  return run_task;
}

// run.backend, which must be one `compopt train` runs on.
void resolve_backend(HyperParams& hp, TrainConfig& c) {
  c.backend = hp.choice("run.backend", "local", backend_registry().names());
  c.simulated = backend_registry().get(c.backend).traits.simulated;
  if (!backend_registry().get(c.backend).traits.trains) {
    hp.fail(
        fmt::format("key 'run.backend' = '{}': compopt train runs on {} only ({} run the "
                    "collectives and comm-bench, not training)",
                    c.backend, join(train_backends(true)), join(train_backends(false))));
  }
  if (const std::string why = backend_registry().get(c.backend).available(); !why.empty()) {
    hp.fail(fmt::format("key 'run.backend' = '{}' cannot run here: {}", c.backend, why));
  }
  try {
    c.launched = launched_rank(c.backend);
  } catch (const InvalidArgument& e) {
    hp.fail(fmt::format("key 'run.backend': {}", e.what()));
  }
}

// run.ranks: given (>= 1), else 1; on a launched rank the launched world size,
// which a given value must equal.
int resolve_ranks(HyperParams& hp, const TrainConfig& c) {
  const auto given = hp.optional_integer("run.ranks", 1);
  if (!c.launched) return static_cast<int>(given.value_or(1));
  if (given && *given != c.launched->world_size) {
    hp.fail(fmt::format(
        "key 'run.ranks' = {}, but this process is one rank of a launched world of {} ranks: "
        "expected run.ranks = {} (or no run.ranks)",
        *given, c.launched->world_size, c.launched->world_size));
  }
  return c.launched->world_size;
}

// run.ranks, run.gpus_per_node and run.cluster (a preset, or a TOML file's [cluster] table);
// for sim, that cluster resized to the ranks.
void resolve_ranks_and_cluster(HyperParams& hp, TrainConfig& c) {
  c.ranks = resolve_ranks(hp, c);
  if (c.ranks > 4096) hp.fail(fmt::format("key 'run.ranks' = {}, expected at most 4096", c.ranks));
  c.gpus_per_node = static_cast<int>(hp.integer("run.gpus_per_node", 0, 0));
  if (c.gpus_per_node > 0 && c.ranks % c.gpus_per_node != 0) {
    hp.fail(fmt::format("key 'run.gpus_per_node' = {} does not divide run.ranks = {}",
                        c.gpus_per_node, c.ranks));
  }
  c.cluster = hp.text("run.cluster", "ethernet-v100-4");
  if (!c.simulated) return;
  try {
    net::ClusterSpec spec = c.cluster.ends_with(".toml") ? cluster_from_file(c.cluster)
                                                         : net::cluster_preset(c.cluster);
    if (c.gpus_per_node > 0) spec.gpus_per_node = c.gpus_per_node;
    c.cluster_spec = net::with_gpus(spec, c.ranks);
    c.cluster_spec.validate();
  } catch (const InvalidArgument& e) {
    hp.fail(fmt::format("key 'run.cluster' = '{}' with run.ranks = {}: {}", c.cluster, c.ranks,
                        e.what()));
  }
}

// The task from the task.* keys; a task too large for memory is bad input.
void build_task(HyperParams& hp, TrainConfig& c) {
  const auto too_big = [&](const char* what) {  // e.g. task.dimension = 1e11: bad input
    hp.fail(
        fmt::format("task '{}': not enough memory for its data ({}), expected smaller "
                    "task.dimension / task.train_size / task.test_size / run.ranks",
                    hp.text("task.name", "fashion-mnist"), what));
  };
  try {
    c.task = make_task(hp, "task.", c.ranks);
  } catch (const std::bad_alloc& e) {
    too_big(e.what());
  } catch (const std::length_error& e) {
    too_big(e.what());
  }
}

// steps_per_epoch and the total steps, from run.steps or run.epochs (default 1 epoch).
void resolve_steps(const HyperParams& hp, TrainConfig& c, std::optional<int64_t> epochs,
                   std::optional<int64_t> steps) {
  c.steps_per_epoch = static_cast<int64_t>(
      ShardSampler::steps_per_epoch(c.task->train_size(), c.ranks, c.batch_per_rank));
  if (c.steps_per_epoch < 1) {
    hp.fail(
        fmt::format("key 'run.batch_per_rank' = {}: a rank's shard has only {} examples ({} / {} "
                    "ranks)",
                    c.batch_per_rank, c.task->train_size() / static_cast<size_t>(c.ranks),
                    c.task->train_size(), c.ranks));
  }
  if (epochs && *epochs > std::numeric_limits<int64_t>::max() / c.steps_per_epoch) {
    hp.fail(fmt::format("key 'run.epochs' = {}: {} steps per epoch overflow the step count",
                        *epochs, c.steps_per_epoch));
  }
  c.steps = steps ? *steps : epochs.value_or(1) * c.steps_per_epoch;
}

}  // namespace

std::map<std::string, std::string> parse_toml_flat(std::string_view text, const std::string& path) {
  toml::table root = parse_toml_document(text, path, "config file");
  canonicalize_keys(root, fmt::format("config file '{}'", path));
  std::map<std::string, std::string> flat;
  for (const auto& [table_key, node] : root) {
    const std::string table(table_key.str());
    const toml::table* t = node.as_table();
    if (!t || !known_table(table)) {
      throw InvalidArgument(
          fmt::format("config file '{}': unknown top-level key '{}', expected one of "
                      "the tables [{}]",
                      path, table, join(kTables, "], [")));
    }
    for (const auto& [key, value] : *t) {
      const std::string full = table + "." + std::string(key.str());
      if (value.is_table()) {
        throw InvalidArgument(
            fmt::format("config file '{}': key '{}' is a table, expected a value", path, full));
      }
      flat[full] = scalar_text(value, full);
    }
  }
  return flat;
}

TrainConfig load_train_config(const std::string& path, const std::vector<std::string>& overrides) {
  TrainConfig c;
  c.file = path;
  c.overrides = overrides;
  c.values = merged_values(path, overrides);
  HyperParams hp("config", run_and_task_keys(c.values));
  resolve_backend(hp, c);
  resolve_ranks_and_cluster(hp, c);
  c.batch_per_rank = static_cast<size_t>(hp.integer("run.batch_per_rank", 32, 1));
  const auto epochs = hp.optional_integer("run.epochs", 1);
  const auto steps = hp.optional_integer("run.steps", 1);
  if (epochs && steps)
    hp.fail("keys 'run.epochs' and 'run.steps' are both set, expected one of them");
  c.eval_every = hp.integer("run.eval_every", 0, 0);
  c.seed = static_cast<uint64_t>(hp.integer("run.seed", 1, 0));
  build_task(hp, c);
  c.compute =
      resolve_sim_compute(hp, c.backend, c.simulated, c.cluster_spec, *c.task, c.batch_per_rank);
  hp.finish();
  resolve_steps(hp, c, epochs, steps);
  check_train_limits(c, MemoryBudget::of_this_machine());
  resolve_optimizer(c);
  return c;
}

nlohmann::json TrainConfig::to_json() const {
  return {{"file", file},
          {"overrides", overrides},
          {"values", values},
          {"resolved",
           {{"backend", backend},
            {"cluster", simulated ? nlohmann::json(cluster) : nlohmann::json()},
            {"ranks", ranks},
            {"gpus_per_node", gpus_per_node},
            {"batch_per_rank", batch_per_rank},
            {"global_batch", batch_per_rank * static_cast<size_t>(ranks)},
            {"steps", steps},
            {"steps_per_epoch", steps_per_epoch},
            {"eval_every", eval_every > 0 ? eval_every : steps_per_epoch},
            {"seed", seed},
            {"task", task->describe()},
            {"parameters", task->layout().total()},
            {"optimizer", optimizer},
            {"optimizer_params", optimizer_params},
            {"compute", compute.to_json()}}}};
}

}  // namespace compopt::cli
