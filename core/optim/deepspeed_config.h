#pragma once
// The optimizer block of a DeepSpeed JSON config mapped onto compopt's optimizer registry, the
// one mapping compopt.torch.from_deepspeed and `compopt train` (optimizer.deepspeed) share.
//
//   {"optimizer": {"type": "OneBitAdam", "params": {"lr": 1e-3, "freeze_step": 400, ...}}}
//
// Types (case-insensitive, as DeepSpeed reads them): Adam, AdamW -> adam; Lamb -> lamb;
// OneBitAdam -> onebit-adam; OneBitLamb -> onebit-lamb. Every key of "params" is mapped to a
// registry key (betas -> beta1/beta2, max_coeff -> c_max, coeff_beta -> beta3, factor_* ->
// r_*, ...), accepted without effect (cuda_aware, comm_backend_name, torch_adam, and
// bias_correction of the 1-bit optimizers, which DeepSpeed's do not apply either), accepted
// only at the value that matches compopt's math (amsgrad false, eps_inside_sqrt false,
// max_grad_norm 0, adam_w_mode true), or refused by name. DeepSpeed's defaults where they
// differ from the registry's: bias_correction true for Adam/Lamb, freeze_step 100000.
// ZeroOneAdam -> zero-one-adam, its var_* and local_step_* keys one to one (the registry has
// DeepSpeed's defaults for them).
// docs/optimizers.md, "DeepSpeed optimizer configs", has the table.
#include <string>
#include <string_view>
#include <vector>

#include "core/util/hyper_params.h"

namespace compopt {

struct DeepSpeedOptimizer {
  std::string optimizer;             // registry name
  HyperParamMap keys;                // registry keys, as make_optimizer takes them
  std::vector<std::string> ignored;  // DeepSpeed keys given that have no effect here
};

// `json`: a whole DeepSpeed config (its "optimizer" block is read, other blocks are not) or the
// optimizer block itself. Throws InvalidArgument naming the type, key and value it refuses.
DeepSpeedOptimizer deepspeed_optimizer(std::string_view json);

// The same for a JSON file; an unreadable file throws InvalidArgument naming it.
DeepSpeedOptimizer deepspeed_optimizer_file(const std::string& path);

// Markdown table of the mapping (docs/optimizers.md contains it verbatim).
std::string deepspeed_table_markdown();

}  // namespace compopt
