#pragma once
// The optimizer registry: one entry per optimizer with its canonical name, aliases, help,
// source, default learning rate, the keys it accepts (declared with defaults and ranges,
// core/util/option_key.h), the communication of each of its stages (stage_spec.h) and its
// builder. make_optimizer (optimizer_factory.h), the step simulator, --help texts and the
// tables of docs/optimizers.md all read this one table.
//
// Keys every optimizer accepts besides its own: common_optimizer_keys() and the learning
// rate schedule keys of make_lr_schedule (lr_schedule.h).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/optim/optimizer.h"
#include "core/optim/stage_spec.h"
#include "core/util/option_key.h"
#include "core/util/param_layout.h"
#include "core/util/registry.h"

namespace compopt {

using OptimizerBuilder = std::function<std::unique_ptr<Optimizer>(
    const std::string& name, KeyReader& keys, CommonOptions common, const ParamLayout& layout)>;

// What a rank keeps between steps besides parameters and gradients, as fp32 vectors
// (docs/algorithms.md): of the whole parameter length, and of the rank's shard of the
// hierarchical scheme (parameters / GPUs per node). Error-feedback buffers are not counted
// here: they follow from the stages' CommPattern (sim/gpu_memory.h).
struct StateFootprint {
  int vectors = 0;
  int shard_vectors = 0;
};

struct OptimizerEntry : RegistryEntry {
  std::string source;  // paper or docs section the update follows
  double default_lr = 1e-3;
  std::vector<OptionKey> keys;
  std::vector<StageSpec> stages;  // in the order a run goes through them
  StateFootprint state;
  // The uncompressed optimizer an end-to-end speedup is measured against (sim/time_to_train.h);
  // empty: the optimizer is a baseline itself.
  std::string baseline;
  OptimizerBuilder build;
};

const Registry<OptimizerEntry>& optimizer_registry();

// weight_decay, eps, wire, seed.
const std::vector<OptionKey>& common_optimizer_keys();

// Markdown tables generated from the registry (docs/optimizers.md contains them verbatim).
std::string optimizer_table_markdown();
std::string optimizer_stage_table_markdown();
std::string common_key_table_markdown();

}  // namespace compopt
