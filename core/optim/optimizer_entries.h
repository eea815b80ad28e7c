#pragma once
// The building blocks of the optimizer registry's entries (optimizer_registry.cc assembles the
// registry): the stages most entries share, the keys and key readers several families use, and
// one add_*_family per file optimizer_entries_<family>.cc. Internal to core/optim.

#include <string>
#include <vector>

#include "core/optim/adam.h"
#include "core/optim/momentum.h"
#include "core/optim/optimizer_registry.h"

namespace compopt::optimizer_entries {

inline constexpr double kSgdLr = 0.01;
inline constexpr double kAdaptiveLr = 1e-3;

// The gradient's ring allreduce goes out in buckets as backward produces them (PyTorch DDP);
// every other vector is formed in the optimizer step from the whole gradient (stage_spec.h).
StageSpec full_precision_stage();
StageSpec warmup_stage();
// The compressed allreduce of a vector formed in the step, with `sign`.
StageSpec sign_compression_stage();
// The stage with LAMB's per-layer step: 68 fp32 bytes per parameter where Adam moves 48.
StageSpec lamb_step(StageSpec stage);

std::vector<OptionKey> operator+(std::vector<OptionKey> a, const std::vector<OptionKey>& b);
std::vector<OptionKey> momentum_keys(const std::string& beta);
std::vector<OptionKey> adam_keys(bool bias_correction);
std::vector<OptionKey> clip_keys(const std::string& lo, const std::string& lo_default,
                                 const std::string& hi, const std::string& hi_default,
                                 const std::string& what);

MomentumOptions read_momentum(KeyReader& r);
AdamOptions read_adam(KeyReader& r, bool with_bias_correction);
// beta1 and beta2 into the options of an optimizer that keeps Adam's moments.
template <class Options>
void read_adam_betas(KeyReader& r, Options& o) {
  const AdamOptions a = read_adam(r, false);
  o.beta1 = a.beta1;
  o.beta2 = a.beta2;
}
// lo and hi from their keys; fails naming both when lo > hi.
void read_clip(KeyReader& r, double& lo, double& hi, const std::string& lo_key,
               const std::string& hi_key);
// A compressor for the compressed allreduce: it must cut into chunks (compressor.h).
std::string read_compressor(KeyReader& r);

OptimizerEntry entry(std::string name, std::vector<std::string> aliases, std::string help,
                     std::string source, double lr, std::vector<OptionKey> keys,
                     std::vector<StageSpec> stages, OptimizerBuilder build);
// The entry with its state footprint and baseline (optimizer_registry.h).
OptimizerEntry with_state(OptimizerEntry e, StateFootprint state, std::string baseline = "");

// One per family file, in the registry's order.
void add_sgd_family(Registry<OptimizerEntry>& reg);       // sgd, momentum-sgd
void add_adam_family(Registry<OptimizerEntry>& reg);      // adam, bertadam, lamb
void add_papers_family(Registry<OptimizerEntry>& reg);    // 1-bit Adam, 1-bit LAMB, Birder
void add_zero_one_adam(Registry<OptimizerEntry>& reg);    // 0/1 Adam
void add_sgd_variants(Registry<OptimizerEntry>& reg);     // EF, DoubleSqueeze, local SGD
void add_diloco_family(Registry<OptimizerEntry>& reg);    // DiLoCo, Streaming DiLoCo
void add_powersgd_family(Registry<OptimizerEntry>& reg);  // PowerSGD on SGD and on Adam
void add_demo_family(Registry<OptimizerEntry>& reg);      // DeMo

}  // namespace compopt::optimizer_entries
