#pragma once
// Builds an optimizer from its name (or alias) and string hyper-parameters, e.g.
//   make_optimizer("onebit-adam", {{"freeze_step", "400"}, {"lr", "1e-4"}}, layout)
// Names, aliases, keys and defaults come from the optimizer registry
// (optimizer_registry.h, tabulated in docs/optimizers.md). Throws InvalidArgument naming
// the optimizer, the key, the bad value and the expected form for unknown names or keys,
// unparsable numbers, out-of-range values and impossible combinations.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/optim/optimizer.h"
#include "core/util/hyper_params.h"
#include "core/util/param_layout.h"

namespace compopt {

std::unique_ptr<Optimizer> make_optimizer(std::string_view name, const HyperParamMap& params,
                                          const ParamLayout& layout);

// Canonical names in registry order.
std::vector<std::string> optimizer_names();

}  // namespace compopt
