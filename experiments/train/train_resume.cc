#include "experiments/train/train_resume.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <sstream>

#include "core/optim/optimizer_factory.h"
#include "core/train/local_training.h"
#include "core/util/error.h"
#include "core/util/text.h"
#include "experiments/train/train_world.h"

namespace compopt::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kConfigPrefix = "config.";

int64_t setting_integer(const Checkpoint& c, const std::string& key, const std::string& source) {
  const auto it = c.settings.find(key);
  if (it == c.settings.end()) {
    throw InvalidArgument(fmt::format("checkpoint {}: setting '{}' is missing", source, key));
  }
  try {
    size_t used = 0;
    const int64_t v = std::stoll(it->second, &used);
    if (used == it->second.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw InvalidArgument(fmt::format("checkpoint {}: setting '{}' = '{}', expected an integer >= 0",
                                    source, key, it->second));
}

// Reads the latest checkpoint of `run_dir`; sets plan's checkpoint_file and
// the checkpointed run's checkpoint cadence.
std::shared_ptr<Checkpoint> read_latest_checkpoint(const std::string& run_dir, ResumePlan& plan) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) {
    throw InvalidArgument(fmt::format("--resume {}: not a directory", run_dir));
  }
  const std::vector<int64_t> steps = list_checkpoints(run_dir);
  if (steps.empty()) {
    throw InvalidArgument(fmt::format(
        "--resume {}: no checkpoint in {} (start runs with --checkpoint-every K to resume them)",
        run_dir, (fs::path(run_dir) / "checkpoints").string()));
  }
  plan.checkpoint_file = checkpoint_path(run_dir, steps.back());
  const std::string source = plan.checkpoint_file.string();
  auto checkpoint = std::make_shared<Checkpoint>(read_checkpoint_file(plan.checkpoint_file));
  if (checkpoint->step != steps.back()) {
    throw InvalidArgument(fmt::format("checkpoint {}: holds step {}, its name says step {}", source,
                                      checkpoint->step, steps.back()));
  }
  plan.checkpoint_every = setting_integer(*checkpoint, "checkpoint_every", source);
  plan.keep_checkpoints = setting_integer(*checkpoint, "keep_checkpoints", source);
  return checkpoint;
}

// The checkpointed run's flat keys ("table.key" -> value), without config.file.
std::map<std::string, std::string> checkpointed_values(const Checkpoint& checkpoint) {
  std::map<std::string, std::string> values;
  for (const auto& [key, value] : checkpoint.settings) {
    if (key.rfind(kConfigPrefix, 0) == 0 && key != "config.file") {
      values[key.substr(std::string(kConfigPrefix).size())] = value;
    }
  }
  return values;
}

// Percentages (and the schedule's default total_steps) keep the values the
// checkpointed run resolved from its own length (its identity `id`), unless overridden.
void keep_resolved_steps(std::map<std::string, std::string>& values,
                         const std::set<std::string>& overridden,
                         const std::map<std::string, std::string>& id) {
  for (auto& [key, value] : values) {
    const auto dot = key.find('.');
    const std::string table = key.substr(0, dot), name = key.substr(dot + 1);
    if ((table == "optimizer" || table == "schedule") && !value.empty() && value.back() == '%' &&
        !overridden.count(key) && id.count("optimizer." + name)) {
      value = id.at("optimizer." + name);
    }
  }
  if (id.count("optimizer.total_steps") && !values.count("optimizer.total_steps") &&
      !values.count("schedule.total_steps") && !overridden.count("optimizer.total_steps") &&
      !overridden.count("schedule.total_steps")) {
    values["optimizer.total_steps"] = id.at("optimizer.total_steps");
  }
}

// The overrides that rebuild the checkpointed run's configuration: its flat
// keys, then the new `overrides`.
std::vector<std::string> resumed_overrides(const Checkpoint& checkpoint,
                                           const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> values = checkpointed_values(checkpoint);
  std::set<std::string> overridden;
  for (const auto& o : overrides) overridden.insert(trim_blanks(o.substr(0, o.find('='))));
  keep_resolved_steps(values, overridden, checkpoint.identity);
  // A new run length replaces the old one in either form.
  if (overridden.count("run.steps") && !overridden.count("run.epochs")) values.erase("run.epochs");
  if (overridden.count("run.epochs") && !overridden.count("run.steps")) values.erase("run.steps");
  std::vector<std::string> all;
  all.reserve(values.size() + overrides.size());
  for (const auto& [key, value] : values) all.push_back(key + "=" + value);
  all.insert(all.end(), overrides.begin(), overrides.end());
  return all;
}

// Checks that plan.config matches `checkpoint` (read from `source`) and has steps left to run.
void check_continuable(const std::string& run_dir, const ResumePlan& plan,
                       const Checkpoint& checkpoint, const std::string& source) {
  const TrainConfig& c = plan.config;
  check_identity(checkpoint, run_identity(c), source);
  if (checkpoint.step >= c.steps) {
    throw InvalidArgument(fmt::format(
        "--resume {}: the latest checkpoint ({}) is at step {} and run.steps = {}: nothing left "
        "to run; continue it with --set run.steps=N, N > {}",
        run_dir, source, checkpoint.step, c.steps, checkpoint.step));
  }
  const OptimizerFactory factory = [&c](const ParamLayout& layout) {
    return make_optimizer(c.optimizer, c.optimizer_params, layout);
  };
  try {
    check_resume(checkpoint, *c.task, factory, train_options_of(c, plan.checkpoint_every), c.ranks);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("checkpoint {}: {}", source, e.what()));
  }
}

// On a launched rank: the launched world must have the checkpoint's world size.
void check_launched_world(const std::string& run_dir, const Checkpoint& checkpoint,
                          const std::string& source) {
  const auto backend = checkpoint.identity.find("run.backend");
  if (backend == checkpoint.identity.end()) return;
  std::optional<LaunchedRank> launched;
  try {
    launched = launched_rank(backend->second);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("--resume {}: {}", run_dir, e.what()));
  }
  if (launched && launched->world_size != checkpoint.world_size()) {
    throw InvalidArgument(fmt::format(
        "--resume {}: the checkpoint {} holds {} ranks, this launched world has {}: resume with "
        "the same number of ranks ({} -n {})",
        run_dir, source, checkpoint.world_size(), launched->world_size, checkpoint.world_size(),
        backend->second == "mpi" ? "mpirun" : "compopt launch"));
  }
}

}  // namespace

std::map<std::string, std::string> run_identity(const TrainConfig& c) {
  std::map<std::string, std::string> id = {
      {"run.backend", c.backend},
      {"run.cluster", c.simulated ? c.cluster : ""},
      {"run.ranks", std::to_string(c.ranks)},
      {"run.ranks_per_node", std::to_string(c.gpus_per_node)},
      {"run.batch_per_rank", std::to_string(c.batch_per_rank)},
      {"run.seed", std::to_string(c.seed)},
      {"task", c.task->describe()},
      {"task.parameters", std::to_string(c.task->layout().total())},
      {"optimizer.name", c.optimizer},
  };
  for (const auto& [key, value] : c.optimizer_params) id["optimizer." + key] = value;
  // The simulated clock's charge: a resumed run continues the same time axis.
  if (c.simulated) id["run.compute"] = c.compute.describe();
  return id;
}

std::map<std::string, std::string> run_settings(const TrainConfig& c, int64_t checkpoint_every,
                                                int64_t keep_checkpoints) {
  std::map<std::string, std::string> s = {
      {"config.file", c.file},
      {"checkpoint_every", std::to_string(checkpoint_every)},
      {"keep_checkpoints", std::to_string(keep_checkpoints)},
  };
  for (const auto& [key, value] : c.values) s[kConfigPrefix + key] = value;
  return s;
}

TrainOptions train_options_of(const TrainConfig& c, int64_t checkpoint_every) {
  // Wall-clock backends gather the step metrics every 16 steps (one synchronization instead
  // of two per step; docs/performance.md "Training loop"); the simulator keeps them per step,
  // where they are part of the simulated time.
  constexpr int64_t kWallClockMetricsEvery = 16;
  return {.batch_per_rank = c.batch_per_rank,
          .steps = c.steps,
          .eval_every = c.eval_every,
          .seed = c.seed,
          .checkpoint_every = checkpoint_every,
          .metrics_every = c.simulated ? 1 : kWallClockMetricsEvery,
          .simulated_clock = c.simulated,
          .compute = c.compute.train_charge()};
}

ResumePlan plan_resume(const std::string& run_dir, const std::vector<std::string>& overrides) {
  ResumePlan plan;
  std::shared_ptr<Checkpoint> checkpoint = read_latest_checkpoint(run_dir, plan);
  check_launched_world(run_dir, *checkpoint, plan.checkpoint_file.string());
  try {
    plan.config = load_train_config("", resumed_overrides(*checkpoint, overrides));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("--resume {}: {}", run_dir, e.what()));
  }
  plan.config.file = checkpoint->settings.count("config.file")
                         ? checkpoint->settings.at("config.file")
                         : std::string();
  plan.config.overrides = overrides;
  check_continuable(run_dir, plan, *checkpoint, plan.checkpoint_file.string());
  plan.checkpoint = std::move(checkpoint);
  return plan;
}

void save_checkpoint(const RunDirectory& dir, Checkpoint& checkpoint,
                     const std::map<std::string, std::string>& identity,
                     const std::map<std::string, std::string>& settings, int64_t keep) {
  checkpoint.identity = identity;
  checkpoint.settings = settings;
  write_checkpoint_file(checkpoint_path(dir.work_path(), checkpoint.step), checkpoint, dir.env());
  dir.write_file("metrics.csv", metrics_csv(checkpoint.records));
  if (keep <= 0) return;
  const std::vector<int64_t> steps = list_checkpoints(dir.work_path());
  for (size_t i = 0; i + static_cast<size_t>(keep) < steps.size(); ++i) {
    if (steps[i] < checkpoint.step) dir.env().remove(checkpoint_path(dir.work_path(), steps[i]));
  }
}

}  // namespace compopt::cli
