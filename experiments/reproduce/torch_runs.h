#pragma once
// The PyTorch training runs of the torch_variance and torch_convergence studies: real
// models (a small ResNet on Fashion-MNIST, a byte-level transformer LM on the python3.11-doc
// text) trained by experiments/torch/train.py with compopt's C++ optimizers on 4 ranks
// started by `compopt launch -n 4` (this same executable), using Debian's /usr/bin/python3
// and the Python module of this build. Each run is trained once per run directory, under
// <run>/torch_training/<label>/ (metrics.csv in `compopt train`'s format, run.json,
// summary.json, train.log), and read back by every study that needs it. Wall-clock
// training: the numbers are reproducible, the times are not.

#include <string>
#include <vector>

#include "core/util/csv_table.h"
#include "experiments/reproduce/study.h"

namespace compopt::cli::reproduce {

struct TorchRunSpec {
  std::string label;               // folder name, e.g. transformer-adam
  std::string model;               // resnet | transformer
  std::string optimizer;           // a compopt optimizer name
  std::vector<std::string> extra;  // further arguments of train.py
};

struct TorchRun {
  TorchRunSpec spec;
  CsvTable metrics;  // metrics.csv columns (docs/training.md)
};

// "" when the examples can run here, else why not (no torch for /usr/bin/python3, the
// Python module of this build missing).
std::string torch_unavailable_reason();

// Trains the runs missing from the run directory, one after another, then reads them all.
// Throws naming the run and its log when a run fails.
std::vector<TorchRun> torch_runs(const StudyContext& context,
                                 const std::vector<TorchRunSpec>& specs);

// The torch_variance study's run (1-bit Adam, freeze_step = auto, on the transformer, with
// the variance study's LR warmup over 2 Delta steps, the detector's lr_warmup_steps); at the
// quick scale the torch_convergence study compares Adam with the same schedule against it.
TorchRunSpec torch_variance_spec(const StudyContext& context);
// train.py's --set arguments of that schedule and beta2.
std::vector<std::string> torch_variance_schedule(const StudyContext& context);
double torch_variance_beta2(const StudyContext& context);
int torch_variance_steps(const StudyContext& context);

// The note a study's report section gives when torch_unavailable_reason() is not "".
std::string torch_skipped_section(const std::string& reason);

}  // namespace compopt::cli::reproduce
