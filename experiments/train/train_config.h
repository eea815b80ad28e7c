#pragma once
// Configuration of `compopt train`: a TOML file plus `--set key=value`
// overrides (config_overrides.h), resolved and validated before any training work starts.
//
// Tables and keys (docs/training.md has the full list):
//   [run]       backend (local | sim | tcp | mpi | hybrid | nccl), cluster (sim: preset),
//               ranks (launched backends: the launched world size, train_world.h), gpus_per_node
//               (alias ranks_per_node), batch_per_rank, epochs | steps, eval_every, seed; sim only:
//               compute, gpu, compute_precision, stand_in, stand_in_batch (sim_compute.h)
//   [task]      name and the task's keys (core/tasks/task_factory.h)
//   [optimizer] name and hyper-parameters passed through to make_optimizer, or deepspeed (a
//               DeepSpeed JSON config whose optimizer block gives both, deepspeed_config.h)
//   [schedule]  type (-> optimizer key "schedule") and the schedule's keys
// Step-count keys of [optimizer]/[schedule] (freeze_step, warmup_steps,
// total_steps, decay_every, amsgrad_start) accept "P%" of the run's total
// steps; cosine / linear_warmup_linear_decay get total_steps = the run's steps
// unless given. optimizer.seed defaults to run.seed. An override of run.steps
// (run.epochs) drops the file's run.epochs (run.steps).
//
// Every problem (missing or unparsable file, unknown table or key, bad value,
// missing data set, unbuilt backend) throws InvalidArgument naming the key.

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tasks/task.h"
#include "core/util/hyper_params.h"
#include "experiments/train/sim_compute.h"
#include "experiments/train/train_world.h"
#include "net_models/cluster_spec.h"

namespace compopt::cli {

struct TrainConfig {
  std::string file;                           // config file ("" for none)
  std::vector<std::string> overrides;         // as given
  std::map<std::string, std::string> values;  // flat "table.key" -> value, file + overrides
  std::string backend = "local";
  bool simulated = false;  // run.backend's BackendTraits::simulated: the cluster is modelled
  // Set when this process is one rank of a launched world (train_world.h).
  std::optional<LaunchedRank> launched;
  std::string cluster;            // simulated: preset name (run.cluster)
  net::ClusterSpec cluster_spec;  // simulated: the preset resized to `ranks` GPUs
  int ranks = 1;
  int gpus_per_node = 0;  // ranks per node (every rank is a GPU); 0: one node
  size_t batch_per_rank = 32;
  int64_t steps = 0;  // resolved total steps
  int64_t steps_per_epoch = 0;
  int64_t eval_every = 0;
  uint64_t seed = 1;
  std::string optimizer;
  HyperParamMap optimizer_params;  // resolved, as passed to make_optimizer
  std::shared_ptr<const Task> task;
  SimCompute compute;  // how the simulated clock charges local work
  // What the run will do that the config may not mean (printed before training starts): an
  // automatic stage change that cannot happen within the run's steps.
  std::vector<std::string> warnings;

  nlohmann::json to_json() const;
};

// Flattens TOML text into "table.key" -> value text; `source` names it in messages (the file).
// Throws InvalidArgument.
std::map<std::string, std::string> parse_toml_flat(std::string_view text,
                                                   const std::string& source);

// Loads, overrides, resolves and validates (builds the task, which loads its
// data, and one optimizer to check its keys).
TrainConfig load_train_config(const std::string& path, const std::vector<std::string>& overrides);

}  // namespace compopt::cli
