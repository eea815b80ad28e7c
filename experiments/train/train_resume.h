#pragma once
// Checkpoints of `compopt train` (docs/training.md "Checkpoints and resume"):
// what a checkpoint must match to be resumed (run_identity), how the run was
// configured (the checkpoint's settings), rebuilding a TrainConfig from them
// for `--resume`, and writing checkpoints plus a matching metrics.csv into a
// run directory.
//
// The identity is the resolved configuration that determines the math and the
// byte counts: backend and cluster, ranks, ranks per node, batch per rank,
// seed, task (its description and parameter count), optimizer name and every
// resolved optimizer key; on sim also the compute charge (SimCompute::describe),
// so a resumed run keeps its time axis. run.steps, run.epochs and run.eval_every may change
// on resume. Step-count keys given as a percentage (and the total_steps a
// cosine schedule takes from run.steps) stay at the values the checkpointed run
// resolved, so a longer run continues the same schedule.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/train/checkpoint.h"
#include "core/train/train_loop.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/train/train_config.h"

namespace compopt::cli {

std::map<std::string, std::string> run_identity(const TrainConfig& c);

// Settings stored in every checkpoint: "config.file", "config.<table.key>" for
// every flat key, "checkpoint_every", "keep_checkpoints".
std::map<std::string, std::string> run_settings(const TrainConfig& c, int64_t checkpoint_every,
                                                int64_t keep_checkpoints);

// The TrainOptions of a configuration (what train_rank runs).
TrainOptions train_options_of(const TrainConfig& c, int64_t checkpoint_every);

struct ResumePlan {
  TrainConfig config;
  std::filesystem::path checkpoint_file;
  std::shared_ptr<const Checkpoint> checkpoint;
  int64_t checkpoint_every = 0;  // of the checkpointed run
  int64_t keep_checkpoints = 0;
};

// Reads the latest checkpoint of `run_dir`, rebuilds its configuration with
// `overrides` applied, and checks that it matches (run_identity) and can
// continue (check_resume). Throws InvalidArgument naming the run directory, the
// checkpoint file and the problem; reads only.
ResumePlan plan_resume(const std::string& run_dir, const std::vector<std::string>& overrides);

// Writes a checkpoint and then metrics.csv with its records into `dir`'s
// work_path() (both atomically, through its Env); with keep > 0 deletes all but the newest `keep`
// checkpoints.
void save_checkpoint(const RunDirectory& dir, Checkpoint& checkpoint,
                     const std::map<std::string, std::string>& identity,
                     const std::map<std::string, std::string>& settings, int64_t keep);

}  // namespace compopt::cli
