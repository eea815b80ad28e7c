#pragma once
// The Fashion-MNIST training runs that the convergence, LAMB-coefficient and
// communication-volume studies share: each (optimizer, seed) is trained once
// per run directory, under <run>/training/<optimizer>-seed<seed>/ (metrics.csv
// as `compopt train` writes it, layers.csv with per-tensor LAMB coefficients
// and ratios, run.json), and read back by every study that needs it.
//
// Setup (both scales): MLP 784-256-256-10, 16 ranks (4 nodes x 4 GPUs) x batch
// 32 on the Sim backend with the ethernet-v100-4 preset. The runs stand in for
// BERT-Large pre-training (sim_time_overrides), so time_s is that workload's
// modeled compute on the V100s plus simulated network time with its message
// sizes: deterministic, and the time axis of the papers' BERT-Large plots.
// Quick: 2 epochs (234 steps); full: 10 epochs (1170 steps), seeds 1-3.
// Hyper-parameters as experiments/configs/fmnist_*.toml.
// Runs missing from the cache are trained in forked children, context.jobs at
// a time.

#include <filesystem>
#include <string>
#include <vector>

#include "core/util/csv_table.h"
#include "experiments/reproduce/study.h"

namespace compopt::cli::reproduce {

struct TrainingRun {
  std::string optimizer;
  int seed = 1;
  CsvTable metrics;  // metrics.csv columns (core/train/step_record.h)
  CsvTable layers;   // step,stage,layer,layer_name,coefficient,ratio
};

// The optimizers the convergence study compares, in plotting order.
const std::vector<std::string>& convergence_optimizers();

// Seeds at the context's scale: {1} quick, {1, 2, 3} full.
std::vector<int> training_seeds(const StudyContext& context);

// Overrides of `compopt train` (table.key=value) for one optimizer at the
// context's scale; the cluster and the rank layout included.
std::vector<std::string> training_overrides(const StudyContext& context,
                                            const std::string& optimizer, int seed);

// One run of `compopt train`'s code: its folder name and the overrides (table.key=value)
// that configure it in full.
struct OverrideRun {
  std::string label;
  std::vector<std::string> overrides;
};

// Trains the runs missing under <run>/<folder>/<label>/ (metrics.csv, layers.csv, run.json)
// in forked children, context.jobs at a time; returns every run's folder, in order.
std::vector<std::filesystem::path> train_override_runs(const StudyContext& context,
                                                       const std::string& folder,
                                                       const std::vector<OverrideRun>& runs);

// Trains what is missing, then returns every requested run (optimizer-major).
std::vector<TrainingRun> training_runs(const StudyContext& context,
                                       const std::vector<std::string>& optimizers,
                                       const std::vector<int>& seeds);

}  // namespace compopt::cli::reproduce
